import { type KubeObject, newBadRequest } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.ts';
import { findUnknownFields, unknownFieldMessage } from '../unknown-fields.ts';
import type { FieldValidation } from './types.ts';

export interface Decoded {
  /** A private copy: unknown fields pruned, schema defaults applied, apiVersion and kind of the storage version. */
  object: KubeObject;
  warnings: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What kube-apiserver's decoder does to a custom resource body before the Store sees it: fieldValidation on unknown
 * fields (Strict → 400 strict decoding error, Warn → one warning each, Ignore → silent), then pruning and defaulting.
 * A body that does not pass the schema is left as it is, for validation to report it with field paths.
 */
export function decodeBody(def: ResourceDefinition, input: unknown, fieldValidation: FieldValidation = 'Warn'): Decoded {
  const version = def.storageVersion.name;
  if (!isRecord(input) || (input.metadata !== undefined && !isRecord(input.metadata)))
    throw newBadRequest(
      `${def.kind} in version ${JSON.stringify(version)} cannot be handled as a ${def.kind}: the body must be a JSON object`,
    );
  const unknown = findUnknownFields(def, version, input);
  const messages = unknown.map(unknownFieldMessage);
  if (fieldValidation === 'Strict' && unknown.length)
    throw newBadRequest(
      `${def.kind} in version ${JSON.stringify(version)} cannot be handled as a ${def.kind}: strict decoding error: ${messages.join(', ')}`,
    );
  const { apiVersion: _a, kind: _k, metadata, ...body } = structuredClone(input);
  const meta = (metadata ?? {}) as KubeObject['metadata'];
  for (const path of unknown) if (path.startsWith('metadata.')) delete (meta as Record<string, unknown>)[path.slice('metadata.'.length)];
  const parsed = def.storageVersion.schema.safeParse(body);
  const apiVersion = def.group ? `${def.group}/${version}` : version;
  const object: KubeObject = { apiVersion, kind: def.kind, metadata: meta, ...(parsed.success ? parsed.data : body) };
  return { object, warnings: fieldValidation === 'Warn' ? messages : [] };
}

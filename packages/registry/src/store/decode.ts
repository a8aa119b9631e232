import { duplicateFieldMessage, isBadRequest, type KubeObject, newBadRequest, parseJsonDetectingDuplicates } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.ts';
import { findUnknownFields, unknownFieldMessage } from '../unknown-fields.ts';
import type { FieldValidation } from './types.ts';

/** A request body: an object already decoded, or the raw JSON bytes or text (the only place duplicate keys still show). */
export type RequestBody = KubeObject | string | Uint8Array;

export interface Decoded {
  /** A private copy: unknown fields pruned, schema defaults applied, apiVersion and kind of the storage version. */
  object: KubeObject;
  warnings: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Non-fatal: kube's JSON decoder coerces malformed UTF-8 to U+FFFD too.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The body as an object plus the paths of its duplicated keys; only a raw body can have any. */
function parseBody(def: ResourceDefinition, input: unknown): { value: unknown; duplicates: string[] } {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return { value: input, duplicates: [] };
  try {
    return parseJsonDetectingDuplicates(typeof input === 'string' ? input : utf8.decode(input));
  } catch (err) {
    if (!isBadRequest(err)) throw err;
    throw newBadRequest(`${cannotHandle(def)}: ${(err as Error).message}`);
  }
}

const cannotHandle = (def: ResourceDefinition): string =>
  `${def.kind} in version ${JSON.stringify(def.storageVersion.name)} cannot be handled as a ${def.kind}`;

/**
 * What kube-apiserver's decoder does to a custom resource body before the Store sees it: fieldValidation on duplicate
 * keys (raw bodies only) and unknown fields (Strict → one 400 strict decoding error listing them all, Warn → one
 * warning each, Ignore → silent), then pruning and defaulting. As for kube's CRD handler, duplicates (found by the
 * JSON decoder) come before unknown fields (found by pruning).
 * A body that does not pass the schema is left as it is, for validation to report it with field paths.
 */
// `body` is typed unknown: anything that is not a RequestBody (a number, an array) is rejected here with a 400.
export function decodeBody(def: ResourceDefinition, body: unknown, fieldValidation: FieldValidation = 'Warn'): Decoded {
  const version = def.storageVersion.name;
  const { value: input, duplicates } = parseBody(def, body);
  if (!isRecord(input) || (input.metadata !== undefined && !isRecord(input.metadata)))
    throw newBadRequest(`${cannotHandle(def)}: the body must be a JSON object`);
  const unknown = findUnknownFields(def, version, input);
  const messages = [...duplicates.map(duplicateFieldMessage), ...unknown.map(unknownFieldMessage)];
  if (fieldValidation === 'Strict' && messages.length)
    throw newBadRequest(`${cannotHandle(def)}: strict decoding error: ${messages.join(', ')}`);
  // A freshly parsed raw body is already private; only a caller's object needs copying.
  const raw = typeof body === 'string' || body instanceof Uint8Array;
  const { apiVersion: _a, kind: _k, metadata, ...rest } = raw ? input : structuredClone(input);
  const meta = (metadata ?? {}) as KubeObject['metadata'];
  for (const path of unknown) if (path.startsWith('metadata.')) delete (meta as Record<string, unknown>)[path.slice('metadata.'.length)];
  const parsed = def.storageVersion.schema.safeParse(rest);
  const apiVersion = def.group ? `${def.group}/${version}` : version;
  const object: KubeObject = { apiVersion, kind: def.kind, metadata: meta, ...(parsed.success ? parsed.data : rest) };
  return { object, warnings: fieldValidation === 'Warn' ? messages : [] };
}

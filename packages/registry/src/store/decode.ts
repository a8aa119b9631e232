import {
  checkJsonDepth,
  duplicateFieldMessage,
  fieldErrors,
  formatGroupVersion,
  isBadRequest,
  type KubeObject,
  newBadRequest,
  newInvalid,
  parseJsonDetectingDuplicates,
  strictDecodingWarnings,
} from '@kapi/apimachinery';
import { invalidError } from '../invalid-error.ts';
import type { ResourceDefinition } from '../resource-definition.ts';
import { findUnknownFields, pruneUnknownMetadata, unknownFieldMessage } from '../unknown-fields.ts';
import { objectMetaTypeErrors } from '../validate-object-meta.ts';
import { copyKeepingManagedFields } from './copy-keeping-managed-fields.ts';
import { goObjectMeta } from './go-object-meta.ts';
import { patchStrictError } from './patch-strict-error.ts';
import type { FieldValidation } from './types.ts';

/** A request body: an object already decoded, or the raw JSON bytes or text (the only place duplicate keys still show). */
export type RequestBody = KubeObject | string | Uint8Array;

export interface Decoded {
  /** A private copy: unknown fields pruned, schema defaults applied, apiVersion and kind of the decoded version. */
  object: KubeObject;
  warnings: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Non-fatal: kube's JSON decoder coerces malformed UTF-8 to U+FFFD too.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The body as an object plus the paths of its duplicated keys; only a raw body can have any. */
function parseBody(def: ResourceDefinition, version: string, input: unknown): { value: unknown; duplicates: string[] } {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    // Decoded by someone else (YAML, protobuf, a caller): held to the JSON decoder's depth limit all the same.
    checkJsonDepth(input);
    return { value: input, duplicates: [] };
  }
  try {
    // A struct kind's fieldsV1 is raw bytes to kube's strict decoder; a kind decoded into maps (strategicMergePatch:
    // false, as custom resources) has it checked — the definition's one flag for "served as unstructured".
    const rawFieldsV1 = def.strategicMergePatch !== false;
    return parseJsonDetectingDuplicates(typeof input === 'string' ? input : utf8.decode(input), { rawFieldsV1 });
  } catch (err) {
    if (!isBadRequest(err)) throw err;
    throw newBadRequest(`${cannotHandle(def, version)}: ${(err as Error).message}`);
  }
}

const cannotHandle = (def: ResourceDefinition, version: string): string =>
  `${def.kind} in version ${JSON.stringify(version)} cannot be handled as a ${def.kind}`;

/** Where a decoded object comes from: a request body, or a patch applied to the stored object. */
export type BodySource = 'request' | 'patch';

/**
 * The request document's part in decoding an object: what its strict decoding found that the object no longer shows
 * (a YAML body's or a patch document's repeated keys), reported before the object's own duplicate and unknown fields.
 */
export interface DocumentDecoding {
  /** Worded as kube words them (StoreCreateOptions.documentStrictErrors). */
  strictErrors: readonly string[];
}

/**
 * A json, merge or strategic patch's part in decoding the object it made (kube's jsonPatcher and smpPatcher): the
 * patch document's strict errors, and the value kube's Strict refusal shows for `patch`.
 */
export interface PatchDecoding extends DocumentDecoding {
  /** The patched object as Go's json.Marshal writes it, or (strategic) Go's %v of the patch. */
  shown(): string;
}

/**
 * The TypeMeta checks of a body sent to one version's endpoint: the handler accepts only the endpoint's group/version
 * (RequestScope.AcceptsGroupVersion without a delegate, so a body of another served version is refused too, not
 * converted). Empty fields take the endpoint's (the decoder's default GVK).
 *
 * A request body of another kind (a Secret sent to /configmaps) fails in kube-apiserver's decoder, which cannot turn
 * one kind into another: 400 BadRequest in transformDecodeError's words. A patch whose result names another kind is
 * the patcher's 422 Invalid instead.
 */
function checkTypeMeta(def: ResourceDefinition, version: string, input: Record<string, unknown>, source: BodySource): void {
  const expected = formatGroupVersion({ group: def.group, version });
  const { apiVersion, kind } = input;
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== expected)
    throw newBadRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${expected})`);
  if (kind !== undefined && kind !== '' && kind !== def.kind) {
    if (source === 'request') {
      // Go's conversion error names the versioned type and the internal (hub) type by their package: v1.Secret, core.ConfigMap.
      const hubPackage = def.group === '' ? 'core' : (def.group.split('.')[0] as string);
      throw newBadRequest(
        `${String(kind)} in version ${JSON.stringify(version)} cannot be handled as a ${def.kind}: ` +
          `converting (${version}.${String(kind)}) to (${hubPackage}.${def.kind}): unknown conversion`,
      );
    }
    const meta = (input.metadata ?? {}) as Record<string, unknown>;
    const name = typeof meta.name === 'string' ? meta.name : '';
    throw newInvalid({ group: def.group, kind: String(kind) }, name, [fieldErrors.invalid('kind', kind, `must be ${def.kind}`)]);
  }
}

/**
 * ObjectMeta fields of the wrong types are a decoding error in kube, for built-in and custom kinds alike (its request
 * decoders refuse malformed metadata): refused here, alone, as the decoder would (422, kapi's answer for type errors).
 * Validation after the strategies would not see them all: the Store overwrites the fields the server sets, and the
 * field manager sets managedFields entries that do not decode aside (as it does with well-typed entries that mean
 * nothing, an unknown operation).
 */
function checkMetadataTypes(def: ResourceDefinition, metadata: Record<string, unknown> | undefined): void {
  const errs = objectMetaTypeErrors(metadata);
  if (errs.length) throw invalidError(def, nameOf(metadata), errs);
}

/** The name an Invalid error names: the body's, when it is a string. */
const nameOf = (metadata: { name?: unknown } | undefined): string => (typeof metadata?.name === 'string' ? metadata.name : '');

/**
 * What kube-apiserver's decoder does to a custom resource body before the Store sees it: fieldValidation on duplicate
 * keys (raw bodies only) and unknown fields (Strict → one 400 strict decoding error listing them all, or for what a
 * patch made one 422 Invalid `patch` with the patch's own strict errors first; Warn → one warning each; Ignore →
 * silent), then pruning and defaulting. As for kube's CRD handler, duplicates (found by the
 * JSON decoder) come before unknown fields (found by pruning).
 * A body that does not pass the schema is left as it is, for validation to report it with field paths.
 *
 * Without `version` the body is decoded as the storage version and its apiVersion and kind are not looked at (the
 * Store's callers that predate versions). With `version` (the request's version, as the REST layer passes it) the body
 * is decoded with that version's schema and must name that version and the kind (checkTypeMeta). With a PatchDecoding
 * the body is what a json, merge or strategic patch made of the stored object.
 */
// `body` is typed unknown: anything that is not a RequestBody (a number, an array) is rejected here with a 400.
export function decodeBody(
  def: ResourceDefinition,
  body: unknown,
  fieldValidation: FieldValidation = 'Warn',
  version?: string,
  document?: DocumentDecoding | PatchDecoding,
): Decoded {
  const patch = document && 'shown' in document ? document : undefined;
  const source: BodySource = patch ? 'patch' : 'request';
  const served = version === undefined ? def.storageVersion : def.version(version);
  if (!served)
    throw newBadRequest(
      `no kind ${JSON.stringify(def.kind)} is registered for version ${JSON.stringify(formatGroupVersion({ group: def.group, version: version ?? '' }))}`,
    );
  const name = served.name;
  const { value: input, duplicates } = parseBody(def, name, body);
  if (!isRecord(input) || (input.metadata !== undefined && !isRecord(input.metadata)))
    throw newBadRequest(`${cannotHandle(def, name)}: the body must be a JSON object`);
  const unknown = findUnknownFields(def, name, input);
  const messages = [...(document?.strictErrors ?? []), ...duplicates.map(duplicateFieldMessage), ...unknown.map(unknownFieldMessage)];
  if (fieldValidation === 'Strict' && messages.length) {
    // kube's patchers refuse what the patch made as an Invalid value of `patch`, not as a body they cannot decode.
    if (patch) throw patchStrictError(patch.shown(), messages);
    throw newBadRequest(`${cannotHandle(def, name)}: strict decoding error: ${messages.join(', ')}`);
  }
  // kube's handler checks the group/version after the decoder's strict errors.
  if (version !== undefined) checkTypeMeta(def, name, input, source);
  checkMetadataTypes(def, input.metadata);
  // A freshly parsed raw body is already private; only a caller's object needs copying.
  const raw = typeof body === 'string' || body instanceof Uint8Array;
  const { apiVersion: _a, kind: _k, metadata, ...rest } = raw ? input : copyKeepingManagedFields(input);
  const meta = (metadata ?? {}) as KubeObject['metadata'];
  if (unknown.some((path) => path.startsWith('metadata.'))) pruneUnknownMetadata(meta as Record<string, unknown>);
  goObjectMeta(meta as Record<string, unknown>);
  let parsed = served.schema.decode(rest);
  // A built-in kind's field sent as null is its zero value in Go: decoded without it (`data:` with nothing under it).
  if (!parsed && served.schema.decodeNulls?.(rest)) parsed = served.schema.decode(rest);
  // Fields of the wrong type fail kube's decoding before anything else looks at the object: refused here (422, as
  // validation answers type errors), or a strategy would drop a wrong-typed status unseen.
  const decodeErrors = parsed ? undefined : served.schema.decodeErrors?.(rest);
  if (decodeErrors?.length) throw invalidError(def, nameOf(meta), decodeErrors);
  const apiVersion = formatGroupVersion({ group: def.group, version: name });
  const object: KubeObject = { apiVersion, kind: def.kind, metadata: meta, ...(parsed ?? rest) };
  return { object, warnings: fieldValidation === 'Warn' ? strictDecodingWarnings(messages) : [] };
}

import {
  asGoDecodes,
  duplicateFieldMessage,
  duplicateKeysIn,
  type KubeObject,
  MAX_JSON_DEPTH,
  newBadRequest,
  newUnsupportedMediaType,
  parseJsonDetectingDuplicates,
  yamlDuplicateKeyMessage,
  yamlStrictDecodingError,
} from '@kapi/apimachinery';
import { type PatchType, type ResourceDefinition, unknownFieldMessage } from '@kapi/registry';
import { type Document, isMap, isNode, isScalar, isSeq, Lexer, LineCounter, parseDocument, visit } from 'yaml';
import { readRequestBody } from '../filters/body-limit.ts';
import type { RequestContext } from '../filters/context.ts';
import { bodyTypeOf, contentTypeOf } from './negotiation.ts';
import { decodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from './protobuf/codec.ts';

/** Request bodies of the REST handler: objects (JSON, YAML, Kubernetes protobuf), patches and DeleteOptions. */

/** A JSON patch document as Go decodes it (lone surrogates replaced, numbers Go cannot hold refused). */
function parseJSONText(text: string): unknown {
  try {
    return asGoDecodes(text, JSON.parse(text));
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${(err as Error).message}`);
  }
}

/**
 * A YAML body (application/yaml objects, apply patches) as a value (YAML 1.2 core schema: no merge keys), read as
 * decodeYAMLDocument reads it (a repeated key's last value wins; `strictErrors`: what kube's strict decoding reports of
 * the repeats); a failure is kube's 400. Guarded against the inputs that make the yaml
 * library spend seconds of CPU on one request:
 * - the library spends 2-6 µs of CPU per token (a lossless CST object per token, then a node per value, mostly
 *   garbage collection), so 3 MiB of `a: [a,a,…]` (1.5 million items) or of blank lines took 7-17 s: a body of more
 *   than MAX_YAML_TOKENS tokens is refused from the lexer, which stops there, before the parser builds anything;
 * - flow collections nested deeper than kube's decoder allows are refused in the same pass (3 MiB of "[" took 33 s
 *   to fail);
 * - duplicate keys are found with one set per map instead of the library's pairwise check (60,000 keys: 29 s → <1 s);
 * - aliases are expanded at most 100 times (billion laughs), as the library does by default.
 */
export function parseYAMLBody(raw: Uint8Array): YAMLDocument {
  try {
    return decodeYAMLDocument(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw newBadRequest(`error decoding YAML: ${(err as Error).message}`);
  }
}

/**
 * How bodies are parsed: repeated keys kept for the checks above, and only the first document counts, as go-yaml's
 * Unmarshal (under sigs.k8s.io/yaml, kube's YAML decoding) reads a `---`-separated body; the yaml library otherwise
 * adds an error for a second document. 'silent' also keeps the library from printing warnings about a request's
 * content (a map key that is a collection) on the server's console.
 */
const FIRST_DOCUMENT = { uniqueKeys: false, logLevel: 'silent' } as const;

/**
 * YAML text as a value, with the guards above, a repeated key refused too (for configuration files and manifests, which
 * have no fieldValidation to report it through); throws a plain Error for the caller to word.
 */
export function decodeYAML(text: string): unknown {
  const json = decodeJSONPrefixed(text);
  if (json !== NOT_JSON) return json;
  checkTokens(text);
  const doc = parseDocument(text, FIRST_DOCUMENT);
  const [first] = doc.errors;
  if (first) throw first;
  checkUniqueKeys(doc);
  return asGoDecodes(text, doc.toJS({ maxAliasCount: 100 }));
}

const NOT_JSON = Symbol('not JSON');

/** A YAML request document as kube's decoders read it (decodeYAMLDocument). */
export interface YAMLDocument {
  value: unknown;
  /** go-yaml's strict-mode words for each repeated key: `line 10: key "paused" already set in map` (the repeat's line). */
  duplicateKeys: string[];
  /** What kube's strict decoding reports of them: YAMLToJSONStrict's one error, or nothing. */
  strictErrors: string[];
}

/**
 * A YAML request document (an object's body, an apply patch) as kube's decoders read it: leniently (sigs.k8s.io/yaml's
 * YAMLToJSON and Unmarshal: a repeated key's last value wins), with what its strict decoding, which fieldValidation
 * reports, finds of the repeated keys.
 */
export function decodeYAMLDocument(text: string): YAMLDocument {
  const json = decodeJSONPrefixed(text, true);
  if (json !== NOT_JSON) return { value: json, duplicateKeys: [], strictErrors: [] };
  checkTokens(text);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...FIRST_DOCUMENT, lineCounter });
  const [first] = doc.errors;
  if (first) throw first;
  const duplicateKeys = repeatedKeys(doc, lineCounter);
  const value = asGoDecodes(text, doc.toJS({ maxAliasCount: 100 }));
  return { value, duplicateKeys, strictErrors: duplicateKeys.length ? [yamlStrictDecodingError(duplicateKeys)] : [] };
}

/**
 * go-yaml's strict-mode report of the repeated keys of `doc`, in its order: it decodes each pair's value before it
 * finds the key repeated, so what the value holds comes first, and names the line of the value (a block value's first
 * key). One set per map (the yaml library's own check is pairwise), and a worklist, not recursion, at any nesting.
 */
function repeatedKeys(doc: Document, lineCounter: LineCounter): string[] {
  const out: string[] = [];
  // Nodes to walk, and (strings) reports due once the repeated key's value has been walked.
  const work: unknown[] = [doc.contents];
  for (let item = work.pop(); item !== undefined || work.length; item = work.pop()) {
    if (typeof item === 'string') out.push(item);
    else if (isMap(item)) {
      const seen = new Set<unknown>();
      const next: unknown[] = [];
      for (const { key, value } of item.items) {
        const k = isScalar(key) ? key.value : String(key);
        next.push(value);
        if (seen.has(k)) {
          const at = (isNode(value) && value.range) || (isScalar(key) && key.range) || undefined;
          next.push(yamlDuplicateKeyMessage(at ? lineCounter.linePos(at[0]).line : 0, k));
        }
        seen.add(k);
      }
      for (let i = next.length - 1; i >= 0; i--) work.push(next[i]);
    } else if (isSeq(item)) for (let i = item.items.length - 1; i >= 0; i--) work.push(item.items[i]);
  }
  return out;
}

/**
 * fieldValidation of an apply patch's repeated keys (kube checks them with yaml.UnmarshalStrict once the apply is
 * merged; kapi before, so a Strict refusal here comes before the apply's own errors): Strict refuses them with
 * kube's 400, Warn (the default) answers one warning each, Ignore nothing. Undeclared fields are not its concern:
 * the typed apply always refuses them.
 */
export function applyDuplicateKeyWarnings(duplicateKeys: readonly string[], fieldValidation: string | undefined): string[] {
  if (duplicateKeys.length === 0 || fieldValidation === 'Ignore') return [];
  if (fieldValidation === 'Strict') throw newBadRequest(`error strict decoding YAML: ${yamlStrictDecodingError(duplicateKeys)}`);
  return [...duplicateKeys];
}

/**
 * A YAML body that is JSON (what client libraries send as apply-patch+yaml) decoded as JSON, as apimachinery's
 * yaml.ToJSON does for data with a JSON prefix: the same value (JSON is YAML 1.2), ~100 times faster than the yaml
 * library, and not held to MAX_YAML_TOKENS. Duplicate keys and nesting past 10,000 are refused as on the YAML path.
 */
function decodeJSONPrefixed(text: string, yamlOnDuplicates = false): unknown {
  if (!/^\s*\{/.test(text)) return NOT_JSON;
  try {
    JSON.parse(text);
  } catch {
    return NOT_JSON; // a YAML flow mapping such as `{a: b}`, or not valid at all: the yaml library words the error
  }
  let decoded: ReturnType<typeof parseJsonDetectingDuplicates>;
  try {
    decoded = parseJsonDetectingDuplicates(text);
  } catch (err) {
    // The text parsed above, so only its depth, or a number Go could not decode, can be refused.
    const message = (err as Error).message;
    throw new Error(message.startsWith('json: ') ? message : `exceeded max depth of ${MAX_JSON_DEPTH}`);
  }
  const [duplicate] = decoded.duplicates;
  // An apply patch's repeated keys are reported with their lines: the YAML path reads it (JSON is YAML).
  if (duplicate !== undefined && yamlOnDuplicates) return NOT_JSON;
  if (duplicate !== undefined) throw new Error(`Map keys must be unique: ${JSON.stringify(duplicate)}`);
  return decoded.value;
}

/**
 * What a YAML body may cost: about a second of the yaml library's time at most. kube-apiserver has no such bound
 * (go-yaml is cheaper per token); hand-written manifests hold a few thousand tokens, a 60,000-key ConfigMap about
 * 480,000, and clients that generate large objects send JSON (as application/json, or as YAML that is JSON, which is
 * decoded as JSON).
 */
export const MAX_YAML_TOKENS = 500_000;

function checkTokens(text: string): void {
  let depth = 0;
  let tokens = 0;
  for (const token of new Lexer().lex(text)) {
    if (++tokens > MAX_YAML_TOKENS)
      throw new Error(`the document has more than ${MAX_YAML_TOKENS} YAML tokens; send large objects as JSON`);
    if (token === '[' || token === '{') {
      if (++depth > MAX_JSON_DEPTH) throw new Error(`exceeded max depth of ${MAX_JSON_DEPTH}`);
    } else if (token === ']' || token === '}') depth--;
  }
}

function checkUniqueKeys(doc: Document): void {
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const k = isScalar(key) ? key.value : String(key);
        if (seen.has(k)) throw new Error(`Map keys must be unique: ${JSON.stringify(String(k))}`);
        seen.add(k);
      }
    },
  });
}

/** A request body as audit records it: raw JSON bytes parsed (only done when audit asked for objects). */
export function auditable(body: Uint8Array | KubeObject): unknown {
  if (!(body instanceof Uint8Array)) return body;
  try {
    return JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A DeleteOptions body as JSON bytes (typed clients may send it as protobuf). */
export async function readDeleteBody(ctx: RequestContext): Promise<Uint8Array> {
  const raw = await readRequestBody(ctx);
  if (raw.byteLength && contentTypeOf(ctx.req.headers['content-type']) === KUBERNETES_PROTOBUF)
    return Buffer.from(JSON.stringify(decodeKubernetesProtobuf(raw, { apiVersion: 'v1', kind: 'DeleteOptions' })));
  return raw;
}

/** A create/update body as read (ObjectBody.body), with what strict decoding of its document found that it no longer shows. */
export interface ObjectBody {
  /** Raw JSON bytes for the Store (which detects their duplicate fields), or the object decoded here (YAML, protobuf). */
  body: Uint8Array | KubeObject;
  /** A YAML body's repeated keys, as kube's strict decoding words them (the Store's documentStrictErrors). */
  strictErrors: string[];
}

/** A create/update body (see ObjectBody). */
export async function readObjectBody(ctx: RequestContext, def: ResourceDefinition): Promise<ObjectBody> {
  const mediaType = contentTypeOf(ctx.req.headers['content-type']);
  // kubectl's typed clients (create configmap, create namespace, …) send built-in kinds as Kubernetes protobuf.
  if (mediaType === KUBERNETES_PROTOBUF) {
    const body = decodeKubernetesProtobuf(await readRequestBody(ctx), {
      apiVersion: def.group ? `${def.group}/${def.storageVersion.name}` : def.storageVersion.name,
      kind: def.kind,
    });
    return { body, strictErrors: [] };
  }
  const type = mediaType === '' ? 'json' : bodyTypeOf(mediaType);
  if (type !== 'json' && type !== 'yaml') throw newUnsupportedMediaType(['application/json', 'application/yaml', KUBERNETES_PROTOBUF]);
  const raw = await readRequestBody(ctx);
  if (type === 'json') return { body: raw, strictErrors: [] };
  const { value, strictErrors } = parseYAMLBody(raw);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw newBadRequest(`the object provided is unrecognized (must be of type ${def.kind})`);
  return { body: value as KubeObject, strictErrors };
}

const PATCH_TYPES: ReadonlyMap<string, PatchType> = new Map([
  ['json-patch', 'json'],
  ['merge-patch', 'merge'],
  ['strategic-merge-patch', 'strategic'],
  ['apply-patch', 'apply'],
]);

const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** What a kind that refuses strategic merge patches accepts (kube's list for custom resources). */
const PATCH_MEDIA_TYPES_WITHOUT_STRATEGIC = PATCH_MEDIA_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json');

/**
 * A PATCH's type from its Content-Type. A type the kind does not take is a 415 listing those it does: a kind with
 * `strategicMergePatch: false` (a custom resource's) takes no strategic merge patch, on its subresources neither, as
 * kube's installer registers its patch routes.
 */
export function patchTypeOf(ctx: RequestContext, def: ResourceDefinition): PatchType {
  const type = PATCH_TYPES.get(bodyTypeOf(contentTypeOf(ctx.req.headers['content-type'])) ?? '');
  const strategic = def.strategicMergePatch !== false;
  if (!type || (type === 'strategic' && !strategic))
    throw newUnsupportedMediaType(strategic ? PATCH_MEDIA_TYPES : PATCH_MEDIA_TYPES_WITHOUT_STRATEGIC);
  return type;
}

/**
 * A PATCH body of `type` (patchTypeOf's, which the caller reads first: the options depend on it): the patch document,
 * YAML for apply patches, else JSON. An apply patch also says which of its keys repeat (duplicateKeys, for
 * applyDuplicateKeyWarnings); a JSON one what kube's strict decoding of the document finds (strictErrors, for the
 * Store's documentStrictErrors).
 */
export async function readPatchBody(
  ctx: RequestContext,
  type: PatchType,
): Promise<{ patch: unknown; duplicateKeys?: string[]; strictErrors?: string[] }> {
  const raw = await readRequestBody(ctx);
  if (type === 'apply') {
    const { value, duplicateKeys } = parseYAMLBody(raw);
    return { patch: value, duplicateKeys };
  }
  const text = Buffer.from(raw).toString('utf8');
  let patch: unknown;
  // kube's merge patcher answers a body that is not JSON with json-patch's ErrBadJSONPatch (patches over 1 MiB are
  // decoded first, and say why).
  if (type === 'merge' && raw.byteLength <= 1024 * 1024) {
    try {
      patch = parseJSONText(text);
    } catch {
      throw newBadRequest('Invalid JSON Patch');
    }
  } else patch = parseJSONText(text);
  return { patch, strictErrors: patchDocumentStrictErrors(text, type, patch) };
}

/** The fields of a JSON patch operation (kube's jsonPatchOp, which its strict decoding of the patch holds it to). */
const JSON_PATCH_OP_FIELDS = new Set(['op', 'path', 'from', 'value']);

/**
 * What kube's patchers' strict decoding of a json, merge or strategic patch document finds in it (kjson.UnmarshalStrict
 * into a map, or into []jsonPatchOp): repeated keys, and a JSON patch's operation fields it does not declare, the
 * latter's words prefixed `json patch ` as kube's jsonPatcher prefixes them.
 */
function patchDocumentStrictErrors(text: string, type: Exclude<PatchType, 'apply'>, patch: unknown): string[] {
  let duplicates: string[];
  try {
    duplicates = duplicateKeysIn(text, patch);
  } catch {
    return []; // nested beyond the decoder's limit: refused where the patch is applied
  }
  const errors = duplicates.map(duplicateFieldMessage);
  if (type !== 'json') return errors;
  if (Array.isArray(patch))
    patch.forEach((op, i) => {
      if (typeof op !== 'object' || op === null || Array.isArray(op)) return;
      for (const key of Object.keys(op)) if (!JSON_PATCH_OP_FIELDS.has(key)) errors.push(unknownFieldMessage(`[${i}].${key}`));
    });
  return errors.map((e) => `json patch ${e}`);
}

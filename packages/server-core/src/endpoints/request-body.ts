import { type KubeObject, MAX_JSON_DEPTH, newBadRequest, newUnsupportedMediaType } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/registry';
import { type Document, isScalar, Lexer, parseDocument, visit } from 'yaml';
import { readRequestBody } from '../filters/body-limit.ts';
import type { RequestContext } from '../filters/context.ts';
import { bodyTypeOf, contentTypeOf } from './negotiation.ts';
import { decodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from './protobuf/codec.ts';

/** Request bodies of the REST handler: objects (JSON, YAML, Kubernetes protobuf), patches and DeleteOptions. */

export function parseJSONBody(raw: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${(err as Error).message}`);
  }
}

/**
 * A YAML body (application/yaml objects, apply patches) as a value (YAML 1.2 core schema: no merge keys). Guarded against the inputs that make the yaml
 * library spend seconds of CPU on one request:
 * - flow collections nested deeper than kube's decoder allows are refused from the lexer's tokens, before the
 *   parser builds anything (3 MiB of "[" took 33 s to fail);
 * - duplicate keys are found with one set per map instead of the library's pairwise check (60,000 keys: 29 s → <1 s);
 * - aliases are expanded at most 100 times (billion laughs), as the library does by default.
 */
export function parseYAMLBody(raw: Uint8Array): unknown {
  try {
    return decodeYAML(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw newBadRequest(`error decoding YAML: ${(err as Error).message}`);
  }
}

/** YAML text as a value, with the guards above; throws a plain Error for the caller to word. */
export function decodeYAML(text: string): unknown {
  checkFlowDepth(text);
  const doc = parseDocument(text, { uniqueKeys: false });
  const [first] = doc.errors;
  if (first) throw first;
  checkUniqueKeys(doc);
  return doc.toJS({ maxAliasCount: 100 });
}

function checkFlowDepth(text: string): void {
  let depth = 0;
  for (const token of new Lexer().lex(text)) {
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

/** A create/update body: raw JSON bytes for the Store (which detects duplicate fields), YAML decoded here. */
export async function readObjectBody(ctx: RequestContext, def: ResourceDefinition): Promise<Uint8Array | KubeObject> {
  const mediaType = contentTypeOf(ctx.req.headers['content-type']);
  // kubectl's typed clients (create configmap, create namespace, …) send built-in kinds as Kubernetes protobuf.
  if (mediaType === KUBERNETES_PROTOBUF)
    return decodeKubernetesProtobuf(await readRequestBody(ctx), {
      apiVersion: def.group ? `${def.group}/${def.storageVersion.name}` : def.storageVersion.name,
      kind: def.kind,
    });
  const type = mediaType === '' ? 'json' : bodyTypeOf(mediaType);
  if (type !== 'json' && type !== 'yaml') throw newUnsupportedMediaType(['application/json', 'application/yaml', KUBERNETES_PROTOBUF]);
  const raw = await readRequestBody(ctx);
  if (type === 'json') return raw;
  const value = parseYAMLBody(raw);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw newBadRequest(`the object provided is unrecognized (must be of type ${def.kind})`);
  return value as KubeObject;
}

import { type KubeObject, newBadRequest, newUnsupportedMediaType } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/registry';
import { parse as parseYAML } from 'yaml';
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

export function parseYAMLBody(raw: Uint8Array): unknown {
  try {
    return parseYAML(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw newBadRequest(`error decoding YAML: ${(err as Error).message}`);
  }
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

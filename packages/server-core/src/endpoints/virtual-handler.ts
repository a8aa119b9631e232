import type { AdmissionAttributes } from '@kapi/admission';
import {
  duplicateFieldMessage,
  formatGroupVersion,
  type KubeObject,
  newBadRequest,
  newUnsupportedMediaType,
  parseJsonDetectingDuplicates,
  strictDecodingWarnings,
} from '@kapi/apimachinery';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '@kapi/authn';
import { type FieldValidation, objectMetaTypeErrors, unknownFieldMessage } from '@kapi/registry';
import { readRequestBody } from '../filters/body-limit.ts';
import type { RequestContext } from '../filters/context.ts';
import { addWarning } from '../filters/warning.ts';
import type { RequestInfo } from '../request-info.ts';
import type { VirtualResource } from '../server/virtual-resource.ts';
import { cannotBeHandled } from './go-decode-error.ts';
import { bodyTypeOf, contentTypeOf, negotiateOutput } from './negotiation.ts';
import { decodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from './protobuf/codec.ts';
import { dropUndeclaredFields } from './protobuf/declared-fields.ts';
import { requestAdmissionFields } from './request-admission.ts';
import { decodeYAMLDocument } from './request-body.ts';
import { writeOptionsOf } from './request-options.ts';
import type { ResourceHandlerOptions } from './resource-handler.ts';
import { methodNotAllowed, pathNotFound, writeObject } from './response.ts';

const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Serves one request routed to a virtual resource: POST to the collection goes to its `create` (decode, admission,
 * 201 with the returned object in the negotiated JSON or YAML), anything else to its `handle`, or 405/404 without one.
 */
export async function handleVirtual(
  ctx: RequestContext,
  resource: VirtualResource,
  info: RequestInfo,
  options: Pick<ResourceHandlerOptions, 'admission' | 'onObjects'>,
): Promise<void> {
  // kube routes a create only at the resource's scope: namespaced under namespaces/{ns}, cluster-scoped without.
  if (info.verb === 'create' && info.subresource === '' && !info.name && resource.create && resource.namespaced === !!info.namespace) {
    const w = writeOptionsOf(ctx.url.searchParams, 'CreateOptions');
    const out = negotiateOutput(ctx.req.headers.accept);
    const body = withRequestNamespace(await readKindBody(ctx, resource, w.fieldValidation), info.namespace);
    options.onObjects?.(ctx, { requestObject: resource.auditObject ? resource.auditObject(body) : body });
    const user = ctx.user ?? ANONYMOUS;
    if (options.admission) {
      const attrs: AdmissionAttributes = {
        operation: 'CREATE',
        kind: { group: resource.group, version: resource.version, kind: resource.kind },
        resource: { group: resource.group, version: resource.version, resource: resource.resource },
        subresource: '',
        namespace: info.namespace,
        name: body.metadata?.name ?? '',
        object: body,
        oldObject: null,
        dryRun: w.dryRun,
        userInfo: user,
        ...requestAdmissionFields(ctx, 'CREATE'),
      };
      await options.admission.admit(attrs);
      await options.admission.validate(attrs);
    }
    const result = await resource.create(body, { ctx, info, user, dryRun: w.dryRun });
    options.onObjects?.(ctx, { responseObject: result });
    return writeObject(ctx, 201, result, out.mediaType);
  }
  if (resource.handle) return resource.handle(ctx, info);
  // kube's router has no route for a name under a create-only resource, nor outside its scope (404), nor for other
  // methods on it (405).
  if (info.name || resource.namespaced !== !!info.namespace) throw pathNotFound();
  throw methodNotAllowed();
}

/**
 * kube's EnsureObjectNamespaceMatchesRequestNamespace, as its create handler applies it to every body: a namespace left
 * out is the path's, a cluster-scoped object's is cleared, and one that names another namespace is a 400.
 */
function withRequestNamespace(body: KubeObject, namespace: string): KubeObject {
  const own = body.metadata.namespace ?? '';
  if (own === namespace) return body;
  if (own === '' || namespace === '') {
    const { namespace: _n, ...metadata } = body.metadata;
    return { ...body, metadata: namespace ? { ...metadata, namespace } : metadata };
  }
  throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/**
 * The request body as an object of this group-version and kind (both defaulted when left out), decoded as kube's
 * decoder does: the fields the kind's Go type does not declare are dropped (known for the kinds the protobuf codec
 * models: the reviews, Scale, TokenRequest), and fieldValidation (default Warn) applies to them and to repeated keys of
 * a JSON or YAML body (a YAML one's last value kept, as sigs.k8s.io/yaml keeps it) — Strict refuses them in one 400,
 * Warn answers a warning each, Ignore says nothing.
 */
export async function readKindBody(
  ctx: RequestContext,
  resource: Pick<VirtualResource, 'group' | 'version' | 'kind'>,
  fieldValidation: FieldValidation = 'Warn',
): Promise<KubeObject> {
  const expected = formatGroupVersion({ group: resource.group, version: resource.version });
  const cannot = cannotBeHandled(resource.kind, resource.version);
  const mediaType = contentTypeOf(ctx.req.headers['content-type']);
  const raw = await readRequestBody(ctx);
  let value: unknown;
  let duplicates: string[] = [];
  let yamlErrors: string[] = [];
  if (mediaType === KUBERNETES_PROTOBUF) value = decodeKubernetesProtobuf(raw, { apiVersion: expected, kind: resource.kind });
  else {
    const type = mediaType === '' ? 'json' : bodyTypeOf(mediaType);
    if (type !== 'json' && type !== 'yaml') throw newUnsupportedMediaType(['application/json', 'application/yaml', KUBERNETES_PROTOBUF]);
    const text = Buffer.from(raw).toString('utf8');
    try {
      if (type === 'yaml') {
        ({ value, strictErrors: yamlErrors } = decodeYAMLDocument(text));
      } else ({ value, duplicates } = parseJsonDetectingDuplicates(text, { rawFieldsV1: true }));
    } catch (err) {
      throw newBadRequest(`${cannot}: ${(err as Error).message}`);
    }
  }
  if (!isRecord(value) || (value.metadata !== undefined && value.metadata !== null && !isRecord(value.metadata)))
    throw newBadRequest(`${cannot}: the body must be a JSON object`);
  const { apiVersion, kind } = value;
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== expected)
    throw newBadRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${expected})`);
  if (kind !== undefined && kind !== '' && kind !== resource.kind)
    throw newBadRequest(`${cannot}: the object provided is unrecognized (must be of type ${resource.kind})`);
  // Metadata that does not decode into ObjectMeta's Go types fails kube's decoding, whatever the kind then does with it.
  const metaError = objectMetaTypeErrors(value.metadata)[0];
  if (metaError) throw newBadRequest(`${cannot}: ${metaError.field}: ${metaError.detail}`);
  // Decoded into the Go type, the fields it lacks are gone (SelfSubjectAccessReview's metadata, which must be empty,
  // is empty when it held only such fields).
  const undeclared = dropUndeclaredFields(expected, resource.kind, value) ?? [];
  if (fieldValidation !== 'Ignore') {
    const strict = [...yamlErrors, ...duplicates.map(duplicateFieldMessage), ...undeclared.map(unknownFieldMessage)];
    if (strict.length && fieldValidation === 'Strict') throw newBadRequest(`${cannot}: strict decoding error: ${strict.join(', ')}`);
    for (const warning of strictDecodingWarnings(strict)) addWarning(ctx, warning);
  }
  return { ...value, apiVersion: expected, kind: resource.kind, metadata: isRecord(value.metadata) ? value.metadata : {} } as KubeObject;
}

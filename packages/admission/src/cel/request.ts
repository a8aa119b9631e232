import { type CelType, listType, mapType, type ObjectType } from '@kapi/cel';
import type { AdmissionAttributes } from '../attributes.ts';

type GVK = AdmissionAttributes['kind'];
type GVR = AdmissionAttributes['resource'];

/** The kind and resource a matcher chose as equivalent to the request's (matchPolicy Equivalent), with the subresource. */
export interface EquivalentResource {
  readonly kind: GVK;
  readonly resource: GVR;
}

/**
 * The `request` variable of admission CEL: kube's AdmissionRequest as JSON (CreateAdmissionRequest then
 * ToUnstructured), so empty `omitempty` fields are absent (`has(request.subResource)`), `dryRun` is set and
 * `options` is the operation's CreateOptions/UpdateOptions/... . No uid, object or oldObject (those are variables).
 */
export function admissionRequest(attrs: AdmissionAttributes, equivalent?: EquivalentResource): Record<string, unknown> {
  const kind = equivalent?.kind ?? attrs.kind;
  const resource = equivalent?.resource ?? attrs.resource;
  const request: Record<string, unknown> = {
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
    requestKind: { group: attrs.kind.group, version: attrs.kind.version, kind: attrs.kind.kind },
    requestResource: { group: attrs.resource.group, version: attrs.resource.version, resource: attrs.resource.resource },
    operation: attrs.operation,
    userInfo: userInfo(attrs.userInfo),
    dryRun: attrs.dryRun,
  };
  if (attrs.subresource !== '') {
    request.subResource = attrs.subresource;
    request.requestSubResource = attrs.subresource;
  }
  if (attrs.name !== '') request.name = attrs.name;
  if (attrs.namespace !== '') request.namespace = attrs.namespace;
  if (attrs.operationOptions) request.options = attrs.operationOptions;
  return request;
}

/** authentication/v1 UserInfo as JSON: empty fields are omitted. */
function userInfo(user: AdmissionAttributes['userInfo']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (user.name !== '') out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) out.extra = user.extra;
  return out;
}

/** kube's hand-built DeclTypes name their fields as they are (no escaping: `request.namespace` is a field). */
function objectType(name: string, fields: Record<string, CelType>): ObjectType {
  return { kind: 'object', name, fields, rawNames: true };
}

const gvk = objectType('kubernetes.GroupVersionKind', { group: 'string', version: 'string', kind: 'string' });
const gvr = objectType('kubernetes.GroupVersionResource', { group: 'string', version: 'string', resource: 'string' });

/** kube's BuildRequestType: the declared type of `request`, so `request.nmae` fails to compile. */
export const ADMISSION_REQUEST_TYPE: ObjectType = objectType('kubernetes.AdmissionRequest', {
  kind: gvk,
  resource: gvr,
  subResource: 'string',
  requestKind: gvk,
  requestResource: gvr,
  requestSubResource: 'string',
  name: 'string',
  namespace: 'string',
  operation: 'string',
  userInfo: objectType('kubernetes.UserInfo', {
    username: 'string',
    uid: 'string',
    groups: listType('string'),
    extra: mapType(listType('string')),
  }),
  dryRun: 'bool',
  options: 'dyn',
});

/** kube's BuildNamespaceType: the declared type of `namespaceObject` (managedFields, ownerReferences left out as kube does). */
export const NAMESPACE_TYPE: ObjectType = objectType('kubernetes.Namespace', {
  metadata: objectType('kubernetes.NamespaceMetadata', {
    name: 'string',
    generateName: 'string',
    namespace: 'string',
    labels: mapType('string'),
    annotations: mapType('string'),
    UID: 'string',
    creationTimestamp: 'google.protobuf.Timestamp',
    deletionGracePeriodSeconds: 'int',
    deletionTimestamp: 'google.protobuf.Timestamp',
    generation: 'int',
    resourceVersion: 'string',
    finalizers: listType('string'),
  }),
  spec: objectType('kubernetes.NamespaceSpec', { finalizers: listType('string') }),
  status: objectType('kubernetes.NamespaceStatus', {
    conditions: listType(
      objectType('kubernetes.NamespaceCondition', {
        status: 'string',
        type: 'string',
        lastTransitionTime: 'google.protobuf.Timestamp',
        message: 'string',
        reason: 'string',
      }),
    ),
    phase: 'string',
  }),
});

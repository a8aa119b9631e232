/**
 * Definition names as kube-openapi publishes them (k8s.io/apiserver/pkg/endpoints/openapi's DefinitionNamer and
 * apiextensions' CRD namer), and the names of the shared metav1 / autoscaling definitions.
 */

export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
export const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
export const STATUS_DETAILS = 'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails';
export const STATUS_CAUSE = 'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause';
export const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
export const PRECONDITIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions';
export const WATCH_EVENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';
export const PATCH = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
export const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
export const MANAGED_FIELDS_ENTRY = 'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry';
export const OWNER_REFERENCE = 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference';
export const FIELDS_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1';
export const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
export const SCALE = 'io.k8s.api.autoscaling.v1.Scale';
export const SCALE_SPEC = 'io.k8s.api.autoscaling.v1.ScaleSpec';
export const SCALE_STATUS = 'io.k8s.api.autoscaling.v1.ScaleStatus';

/** The prefix of a reference in an OpenAPI v3 document. */
export const V3_REF_PREFIX = '#/components/schemas/';
/** The prefix of a reference in a Swagger 2.0 document. */
export const V2_REF_PREFIX = '#/definitions/';

/** `{ $ref }` to a v3 component schema. */
export function ref(name: string): { $ref: string } {
  return { $ref: `${V3_REF_PREFIX}${name}` };
}

// Groups whose Go types live outside k8s.io/api.
const GO_PACKAGE_OF_GROUP: Record<string, string> = {
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  'apiregistration.k8s.io': 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
};

/**
 * The definition name of a kind: `io.k8s.api.core.v1.ConfigMap` for the core group, `io.k8s.api.<g>.<v>.<Kind>` for
 * kube's other built-in groups (no dot, or `<g>.k8s.io`), and the CRD namer's reversed group otherwise
 * (`example.kapi.dev`, v1, Widget → `dev.kapi.example.v1.Widget`).
 */
export function definitionName(group: string, version: string, kind: string): string {
  if (group === '') return `io.k8s.api.core.${version}.${kind}`;
  const goPackage = GO_PACKAGE_OF_GROUP[group];
  if (goPackage) return `${goPackage}.${version}.${kind}`;
  if (!group.includes('.') || group.endsWith('.k8s.io')) return `io.k8s.api.${group.split('.')[0]}.${version}.${kind}`;
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** The key of a group-version in the /openapi/v3 index: `api/v1` or `apis/<group>/<version>`. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The URL prefix of a group-version's resources: `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionRoot(group: string, version: string): string {
  return `/${groupVersionPath(group, version)}`;
}

/** kube's operation-id infix and tag stem of a group: "" → core, example.kapi.dev → exampleKapiDev. */
export function groupCamel(group: string): string {
  if (group === '') return 'core';
  const words = group.split(/[.-]/).filter((w) => w !== '');
  // kube drops a trailing .k8s.io / .io from built-in groups' ids (rbac.authorization.k8s.io → rbacAuthorization).
  const trimmed = group.endsWith('.k8s.io') ? words.slice(0, -2) : words;
  return trimmed.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

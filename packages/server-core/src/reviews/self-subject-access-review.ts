import { type FieldError, fieldErrors, type KubeObject, newInvalid, OMIT_VALUE } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import { AlwaysAllowAuthorizer, type AuthorizationAttributes, type AuthorizationResult, type Authorizer } from '@kapi/authz';
import type { VirtualResource } from '../server/virtual-resource.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const RESOURCE_KEYS = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const;

/** Whether a value is Go's zero value as JSON sees it (metadata validation compares against an empty ObjectMeta). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.keys(v).length === 0;
}

/** Go's %#v of the internal NonResourceAttributes, as field.Invalid prints the value kube validation reports. */
function goNonResourceAttributes(v: Json): string {
  return `authorization.NonResourceAttributes{Path:${JSON.stringify(str(v.path))}, Verb:${JSON.stringify(str(v.verb))}}`;
}

/**
 * kube's ValidateSelfSubjectAccessReview: exactly one of spec.resourceAttributes and spec.nonResourceAttributes, and
 * metadata empty (managedFields aside).
 */
export function validateSelfSubjectAccessReview(body: KubeObject): FieldError[] {
  const spec = isRecord((body as Json).spec) ? ((body as Json).spec as Json) : {};
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  const errs: FieldError[] = [];
  if (isRecord(ra) && isRecord(nra))
    // The value is printed as Go prints the struct (%#v), which no JSON value renders; it goes into the detail.
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      badValue: OMIT_VALUE,
      detail: `${goNonResourceAttributes(nra)}: cannot be specified in combination with resourceAttributes`,
    });
  if (!isRecord(ra) && !isRecord(nra))
    errs.push(
      fieldErrors.invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'),
    );
  const { managedFields: _m, ...meta } = (body.metadata ?? {}) as Json;
  if (Object.values(meta).some((v) => !isZero(v))) errs.push(fieldErrors.invalid('metadata', meta, 'must be empty'));
  return errs;
}

/** kube's ResourceAttributesFrom / NonResourceAttributesFrom: what the review asks the authorizer about. */
export function reviewAttributes(user: UserInfo, spec: Json): AuthorizationAttributes {
  const ra = spec.resourceAttributes;
  if (isRecord(ra))
    return {
      user,
      verb: str(ra.verb),
      resourceRequest: true,
      namespace: str(ra.namespace),
      apiGroup: str(ra.group),
      // An empty version matches every version.
      apiVersion: str(ra.version) || '*',
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      name: str(ra.name),
      path: '',
    };
  const nra = isRecord(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return {
    user,
    verb: str(nra.verb),
    resourceRequest: false,
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
    path: str(nra.path),
  };
}

/** The spec as Go writes it back: known fields only, empty strings left out (omitempty). */
function normalizedSpec(spec: Json): Json {
  const out: Json = {};
  if (isRecord(spec.resourceAttributes)) {
    const ra = spec.resourceAttributes;
    const r: Json = {};
    for (const k of RESOURCE_KEYS) if (str(ra[k])) r[k] = ra[k];
    if (isRecord(ra.fieldSelector)) r.fieldSelector = ra.fieldSelector;
    if (isRecord(ra.labelSelector)) r.labelSelector = ra.labelSelector;
    out.resourceAttributes = r;
  }
  if (isRecord(spec.nonResourceAttributes)) {
    const nra = spec.nonResourceAttributes;
    const n: Json = {};
    if (str(nra.path)) n.path = nra.path;
    if (str(nra.verb)) n.verb = nra.verb;
    out.nonResourceAttributes = n;
  }
  return out;
}

/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`): validates the spec (422 as kube), asks
 * `authorizer` (AlwaysAllow when the server has none) whether the requesting user may do what the spec says, and
 * answers the review with status {allowed, denied (when Deny), reason, evaluationError (an authorizer that threw)}.
 */
export function selfSubjectAccessReviewResource(authorizer: Authorizer = new AlwaysAllowAuthorizer()): VirtualResource {
  return {
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    resource: 'selfsubjectaccessreviews',
    singularName: 'selfsubjectaccessreview',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    verbs: ['create'],
    async create(body, { user }) {
      const errs = validateSelfSubjectAccessReview(body);
      // The internal object kube validates has an empty kind, hence `.authorization.k8s.io "" is invalid`.
      if (errs.length) throw newInvalid({ group: AUTHORIZATION_GROUP, kind: '' }, '', errs);
      const spec = isRecord((body as Json).spec) ? ((body as Json).spec as Json) : {};
      let result: AuthorizationResult = { decision: 'NoOpinion', reason: '' };
      let evaluationError = '';
      try {
        result = await authorizer.authorize(reviewAttributes(user, spec));
      } catch (err) {
        evaluationError = err instanceof Error ? err.message : String(err);
      }
      const status: Json = { allowed: result.decision === 'Allow' };
      if (result.decision === 'Deny') status.denied = true;
      if (result.reason) status.reason = result.reason;
      if (evaluationError) status.evaluationError = evaluationError;
      return {
        kind: 'SelfSubjectAccessReview',
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        metadata: { creationTimestamp: null },
        spec: normalizedSpec(spec),
        status,
      };
    },
  };
}

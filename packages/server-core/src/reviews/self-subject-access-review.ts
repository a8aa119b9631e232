import { type FieldError, fieldErrors, type KubeObject, newInvalid, OMIT_VALUE } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import { AlwaysAllowAuthorizer, type AuthorizationAttributes, type AuthorizationResult, type Authorizer } from '@kapi/authz';
import type { VirtualResource } from '../server/virtual-resource.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The string fields of ResourceAttributes. */
export const RESOURCE_KEYS = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const;

/** Whether a value is Go's zero value as JSON sees it (metadata validation compares against an empty ObjectMeta). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.keys(v).length === 0;
}

/**
 * kube's ValidateSelfSubjectAccessReviewSpec, the part every access review shares: exactly one of
 * spec.resourceAttributes and spec.nonResourceAttributes.
 */
export function validateAccessReviewAttributes(spec: Json): FieldError[] {
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
  return errs;
}

/** The metadata kube's review validation compares against an empty ObjectMeta: all of it but managedFields and `except`. */
export function nonEmptyMetadata(body: KubeObject, except: readonly string[] = []): Json | undefined {
  const meta: Json = { ...((body.metadata ?? {}) as Json) };
  for (const k of ['managedFields', ...except]) delete meta[k];
  return Object.values(meta).some((v) => !isZero(v)) ? meta : undefined;
}

/**
 * kube's ValidateSelfSubjectAccessReview: exactly one of spec.resourceAttributes and spec.nonResourceAttributes, and
 * metadata empty (managedFields aside).
 */
export function validateSelfSubjectAccessReview(body: KubeObject): FieldError[] {
  const errs = validateAccessReviewAttributes(specOf(body));
  const meta = nonEmptyMetadata(body);
  if (meta) errs.push(fieldErrors.invalid('metadata', meta, 'must be empty'));
  return errs;
}

/** The body's spec, `{}` when it has none. */
export function specOf(body: KubeObject): Json {
  const spec = (body as Json).spec;
  return isRecord(spec) ? spec : {};
}

/** Go's %#v of the internal NonResourceAttributes, as field.Invalid prints the value kube validation reports. */
export function goNonResourceAttributes(v: Json): string {
  return `authorization.NonResourceAttributes{Path:${JSON.stringify(str(v.path))}, Verb:${JSON.stringify(str(v.verb))}}`;
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

/** The attributes of a review's spec as Go writes them back: known fields only, empty strings left out (omitempty). */
export function normalizedSpec(spec: Json): Json {
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
 * What kube's access-review REST answers: asks `authorizer` and reports {allowed, denied (on Deny), reason,
 * evaluationError (an authorizer that threw)}, each left out when empty (omitempty).
 */
export async function accessReviewStatus(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<Json> {
  let result: AuthorizationResult = { decision: 'NoOpinion', reason: '' };
  let evaluationError = '';
  try {
    result = await authorizer.authorize(attrs);
  } catch (err) {
    evaluationError = err instanceof Error ? err.message : String(err);
  }
  const status: Json = { allowed: result.decision === 'Allow' };
  if (result.decision === 'Deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  if (evaluationError) status.evaluationError = evaluationError;
  return status;
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
      const spec = specOf(body);
      const status = await accessReviewStatus(authorizer, reviewAttributes(user, spec));
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

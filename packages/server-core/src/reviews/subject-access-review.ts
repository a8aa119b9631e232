import { type FieldError, fieldErrors, type KubeObject, newBadRequest, newInvalid, OMIT_VALUE } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import { AlwaysAllowAuthorizer, type Authorizer } from '@kapi/authz';
import { goDecodeError } from '../endpoints/go-decode-error.ts';
import type { VirtualResource } from '../server/virtual-resource.ts';
import {
  AUTHORIZATION_GROUP,
  accessReviewStatus,
  goNonResourceAttributes,
  nonEmptyMetadata,
  normalizedSpec,
  RESOURCE_KEYS,
  reviewAttributes,
  specOf,
  validateAccessReviewAttributes,
} from './self-subject-access-review.ts';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** kube's ValidateSubjectAccessReviewSpec: the attributes, and someone to ask about. */
function validateSubjectAccessReviewSpec(spec: Json): FieldError[] {
  const errs = validateAccessReviewAttributes(spec);
  if (!spec.user && !(isStrings(spec.groups) && spec.groups.length))
    errs.push(
      fieldErrors.invalid('spec.user', typeof spec.user === 'string' ? spec.user : '', 'at least one of user or group must be specified'),
    );
  return errs;
}

/** kube's ValidateSubjectAccessReview: the spec, and metadata empty (managedFields aside). */
export function validateSubjectAccessReview(body: KubeObject): FieldError[] {
  const errs = validateSubjectAccessReviewSpec(specOf(body));
  const meta = nonEmptyMetadata(body);
  if (meta) errs.push(fieldErrors.invalid('metadata', meta, 'must be empty'));
  return errs;
}

/**
 * kube's ValidateLocalSubjectAccessReview: the spec; metadata empty but for its namespace; the resource attributes in
 * that namespace; no non-resource attributes (a namespace cannot hold a path).
 */
export function validateLocalSubjectAccessReview(body: KubeObject): FieldError[] {
  const spec = specOf(body);
  const errs = validateSubjectAccessReviewSpec(spec);
  const meta = nonEmptyMetadata(body, ['namespace']);
  if (meta) errs.push(fieldErrors.invalid('metadata', body.metadata, 'must be empty except for namespace'));
  const ra = spec.resourceAttributes;
  const namespace = body.metadata?.namespace ?? '';
  if (isRecord(ra) && (ra.namespace ?? '') !== namespace)
    errs.push(fieldErrors.invalid('spec.resourceAttributes.namespace', ra.namespace ?? '', 'must match metadata.namespace'));
  if (isRecord(spec.nonResourceAttributes))
    // Go prints the struct with %#v, which no JSON value renders; it goes into the detail (as for SelfSubjectAccessReview).
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      badValue: OMIT_VALUE,
      detail: `${goNonResourceAttributes(spec.nonResourceAttributes)}: disallowed on this kind of request`,
    });
  return errs;
}

/**
 * kube's AuthorizationAttributesFrom: the user under review is the spec's (user, groups, uid, extra), never the
 * requester.
 */
export function reviewedUser(spec: Json): UserInfo {
  const extra: Record<string, readonly string[]> = {};
  if (isRecord(spec.extra)) for (const [k, v] of Object.entries(spec.extra)) if (isStrings(v)) extra[k] = [...v];
  return {
    name: typeof spec.user === 'string' ? spec.user : '',
    groups: isStrings(spec.groups) ? [...spec.groups] : [],
    ...(typeof spec.uid === 'string' && spec.uid ? { uid: spec.uid } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

/**
 * The decode error kube answers when a field of the spec has the wrong JSON type (a 400, before any validation), e.g.
 * `json: cannot unmarshal number into Go struct field SubjectAccessReviewSpec.spec.user of type string`.
 */
function checkSpecTypes(kind: string, body: KubeObject): void {
  const bad = (found: unknown, struct: string, path: string, type: string): Error => goDecodeError(kind, 'v1', found, struct, path, type);
  const given = (v: unknown): boolean => v !== undefined && v !== null;
  const strings = (obj: Json, struct: string, path: string, keys: readonly string[]): void => {
    for (const k of keys) if (given(obj[k]) && typeof obj[k] !== 'string') throw bad(obj[k], struct, `${path}.${k}`, 'string');
  };
  const list = (v: unknown, path: string, type: string): void => {
    if (!given(v)) return;
    if (!Array.isArray(v)) throw bad(v, 'SubjectAccessReviewSpec', path, type);
    for (const s of v) if (typeof s !== 'string') throw bad(s, 'SubjectAccessReviewSpec', path, 'string');
  };
  const spec = (body as Json).spec;
  if (!given(spec)) return;
  if (!isRecord(spec)) throw bad(spec, kind, 'spec', 'v1.SubjectAccessReviewSpec');
  strings(spec, 'SubjectAccessReviewSpec', 'spec', ['user', 'uid']);
  list(spec.groups, 'spec.groups', '[]string');
  if (given(spec.extra)) {
    if (!isRecord(spec.extra)) throw bad(spec.extra, 'SubjectAccessReviewSpec', 'spec.extra', 'map[string]v1.ExtraValue');
    for (const [k, v] of Object.entries(spec.extra)) list(v, `spec.extra.${k}`, 'v1.ExtraValue');
  }
  const ra = spec.resourceAttributes;
  if (given(ra)) {
    if (!isRecord(ra)) throw bad(ra, 'SubjectAccessReviewSpec', 'spec.resourceAttributes', 'v1.ResourceAttributes');
    strings(ra, 'ResourceAttributes', 'spec.resourceAttributes', RESOURCE_KEYS);
  }
  const nra = spec.nonResourceAttributes;
  if (given(nra)) {
    if (!isRecord(nra)) throw bad(nra, 'SubjectAccessReviewSpec', 'spec.nonResourceAttributes', 'v1.NonResourceAttributes');
    strings(nra, 'NonResourceAttributes', 'spec.nonResourceAttributes', ['path', 'verb']);
  }
}

/** SubjectAccessReviewSpec as Go writes it back: the attributes, then user, groups, extra, uid, each omitted when empty. */
function normalizedSubjectSpec(spec: Json): Json {
  const user = reviewedUser(spec);
  return {
    ...normalizedSpec(spec),
    ...(user.name ? { user: user.name } : {}),
    ...(user.groups.length ? { groups: user.groups } : {}),
    ...(user.extra ? { extra: user.extra } : {}),
    ...(user.uid ? { uid: user.uid } : {}),
  };
}

/**
 * authorization.k8s.io/v1 SubjectAccessReview, the delegated-authorization API (aggregated API servers and webhooks
 * ask it whether someone may do something): validates the review (422 as kube), asks `authorizer` about the user the
 * spec names, and answers with the review and its status {allowed, denied, reason, evaluationError}.
 */
export function subjectAccessReviewResource(authorizer: Authorizer = new AlwaysAllowAuthorizer()): VirtualResource {
  return {
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    resource: 'subjectaccessreviews',
    singularName: 'subjectaccessreview',
    kind: 'SubjectAccessReview',
    namespaced: false,
    verbs: ['create'],
    async create(body) {
      checkSpecTypes('SubjectAccessReview', body);
      const errs = validateSubjectAccessReview(body);
      // The internal object kube validates has an empty kind, hence `.authorization.k8s.io "" is invalid`.
      if (errs.length) throw newInvalid({ group: AUTHORIZATION_GROUP, kind: '' }, '', errs);
      const spec = specOf(body);
      return {
        kind: 'SubjectAccessReview',
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        metadata: { creationTimestamp: null },
        spec: normalizedSubjectSpec(spec),
        status: await accessReviewStatus(authorizer, reviewAttributes(reviewedUser(spec), spec)),
      };
    },
  };
}

/**
 * authorization.k8s.io/v1 LocalSubjectAccessReview: a SubjectAccessReview confined to the namespace of its path
 * (POST /apis/authorization.k8s.io/v1/namespaces/{ns}/localsubjectaccessreviews), so that a namespace's admins can be
 * granted access checks there alone. metadata.namespace is the path's (the create handler defaults it and refuses
 * another); spec.resourceAttributes.namespace must equal it.
 */
export function localSubjectAccessReviewResource(authorizer: Authorizer = new AlwaysAllowAuthorizer()): VirtualResource {
  return {
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    resource: 'localsubjectaccessreviews',
    singularName: 'localsubjectaccessreview',
    kind: 'LocalSubjectAccessReview',
    namespaced: true,
    verbs: ['create'],
    async create(body, { info }) {
      checkSpecTypes('LocalSubjectAccessReview', body);
      const errs = validateLocalSubjectAccessReview(body);
      if (errs.length) throw newInvalid({ group: AUTHORIZATION_GROUP, kind: '' }, '', errs);
      const namespace = info.namespace;
      if (!namespace) throw newBadRequest(`namespace is required on this type: ${namespace}`);
      if (namespace !== body.metadata?.namespace)
        throw newBadRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
      const spec = specOf(body);
      return {
        kind: 'LocalSubjectAccessReview',
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        metadata: { namespace, creationTimestamp: null },
        spec: normalizedSubjectSpec(spec),
        status: await accessReviewStatus(authorizer, reviewAttributes(reviewedUser(spec), spec)),
      };
    },
  };
}

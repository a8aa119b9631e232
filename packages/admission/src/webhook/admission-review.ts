import { randomUUID } from 'node:crypto';
import { formatAPIVersionKind, type GroupVersionKind, type GroupVersionResource, type KubeObject } from '@kapi/apimachinery';
import type { AdmissionAttributes } from '../attributes.ts';
import type { WebhookResult } from './errors.ts';

/**
 * kube's webhook/request/admissionreview.go: the AdmissionReview sent to a webhook (admission.k8s.io/v1, or v1beta1
 * when the webhook lists only that) and the checks on its answer (VerifyAdmissionResponse).
 */

export type AdmissionReviewVersion = 'v1' | 'v1beta1';

/** What a webhook is called as: the resource and kind it matched (another version when matched as equivalent). */
export interface WebhookInvocation {
  readonly resource: GroupVersionResource;
  readonly subresource: string;
  readonly kind: GroupVersionKind;
}

/** The first version in the webhook's admissionReviewVersions that kapi speaks, as kube's CreateAdmissionObjects. */
export function reviewVersionFor(admissionReviewVersions: readonly string[] | undefined): AdmissionReviewVersion | Error {
  for (const v of admissionReviewVersions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return new Error('webhook does not accept known AdmissionReview versions (v1, v1beta1)');
}

/** A random request uid (kube's uuid.NewUUID). */
export const newReviewUID = (): string => randomUUID();

/** The AdmissionReview request body, with the object and old object in the invocation's version. */
export function createAdmissionReview(
  version: AdmissionReviewVersion,
  uid: string,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
  object: KubeObject | null,
  oldObject: KubeObject | null,
): Record<string, unknown> {
  const u = attrs.userInfo;
  const userInfo: Record<string, unknown> = {};
  if (u.name) userInfo.username = u.name;
  if (u.uid) userInfo.uid = u.uid;
  if (u.groups.length) userInfo.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) userInfo.extra = u.extra;
  const request: Record<string, unknown> = {
    uid,
    kind: { group: invocation.kind.group, version: invocation.kind.version, kind: invocation.kind.kind },
    resource: { group: invocation.resource.group, version: invocation.resource.version, resource: invocation.resource.resource },
  };
  if (invocation.subresource) request.subResource = invocation.subresource;
  request.requestKind = { group: attrs.kind.group, version: attrs.kind.version, kind: attrs.kind.kind };
  request.requestResource = { group: attrs.resource.group, version: attrs.resource.version, resource: attrs.resource.resource };
  if (attrs.subresource) request.requestSubResource = attrs.subresource;
  if (attrs.name) request.name = attrs.name;
  if (attrs.namespace) request.namespace = attrs.namespace;
  request.operation = attrs.operation;
  request.userInfo = userInfo;
  request.object = object;
  request.oldObject = oldObject;
  request.dryRun = attrs.dryRun;
  request.options = attrs.operationOptions ?? null;
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** The fields kept of a webhook's answer. `patch` is decoded from base64; `patchType` is '' or 'JSONPatch'. */
export interface AdmissionResponse {
  auditAnnotations: Record<string, string>;
  allowed: boolean;
  patch: Buffer | undefined;
  patchType: string;
  result: WebhookResult | undefined;
  warnings: string[];
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, s] of Object.entries(v)) if (typeof s === 'string') out[k] = s;
  return out;
}

/** kube's VerifyAdmissionResponse: throws an Error worded as kube's when the answer is not a usable review. */
export function verifyAdmissionResponse(
  version: AdmissionReviewVersion,
  uid: string,
  mutating: boolean,
  review: unknown,
): AdmissionResponse {
  const r = (review && typeof review === 'object' ? review : {}) as Record<string, unknown>;
  const response = r.response as Record<string, unknown> | null | undefined;
  if (!response || typeof response !== 'object') throw new Error('webhook response was absent');
  const rawPatch = typeof response.patch === 'string' && response.patch !== '' ? Buffer.from(response.patch, 'base64') : undefined;
  const patch = rawPatch && rawPatch.length > 0 ? rawPatch : undefined;
  const hasPatchType = response.patchType !== undefined && response.patchType !== null;
  const common = {
    auditAnnotations: stringMap(response.auditAnnotations),
    allowed: response.allowed === true,
    result: (response.status && typeof response.status === 'object' ? response.status : undefined) as WebhookResult | undefined,
    warnings: Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [],
  };
  if (version === 'v1beta1') {
    // v1beta1 answers were never checked for uid, kind or patchType; a patch is taken as a JSON patch.
    return { ...common, patch: mutating ? patch : undefined, patchType: mutating && patch ? 'JSONPatch' : '' };
  }
  const got = typeof response.uid === 'string' ? response.uid : '';
  if (got !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
  if (r.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview')
    throw new Error(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${formatAPIVersionKind(r.apiVersion, r.kind)}`,
    );
  if (!mutating) {
    if (patch) throw new Error('validating webhook may not return response.patch');
    if (hasPatchType) throw new Error('validating webhook may not return response.patchType');
    return { ...common, patch: undefined, patchType: '' };
  }
  if (patch && !hasPatchType) throw new Error('webhook returned response.patch but not response.patchType');
  if (!patch && hasPatchType) throw new Error('webhook returned response.patchType but not response.patch');
  const patchType = hasPatchType ? String(response.patchType) : '';
  if (hasPatchType && patchType === '') throw new Error(`webhook returned invalid response.patchType of ""`);
  return { ...common, patch, patchType };
}

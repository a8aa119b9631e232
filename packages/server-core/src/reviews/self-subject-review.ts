import { type Clock, type KubeObject, realClock } from '@kapi/apimachinery';
import { rfc3339Seconds } from '@kapi/registry';
import { goDecodeError } from '../endpoints/go-decode-error.ts';
import type { VirtualResource } from '../server/virtual-resource.ts';

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

/** The versions kapi serves SelfSubjectReview in: v1 (kubectl ≥ 1.28 asks first) and v1beta1 (kubectl 1.27 asks first). */
export const SELF_SUBJECT_REVIEW_VERSIONS: readonly string[] = ['v1', 'v1beta1'];

/**
 * authentication.k8s.io SelfSubjectReview (`kubectl auth whoami`), one virtual resource per version: a create answers
 * with the requesting user (after impersonation) as kube's selfsubjectreview REST does — metadata.creationTimestamp
 * now, status.userInfo {username, uid, groups, extra}, each left out when empty (Go's omitempty).
 */
export function selfSubjectReviewResources(options: { clock?: Clock; versions?: readonly string[] } = {}): VirtualResource[] {
  const clock = options.clock ?? realClock;
  return (options.versions ?? SELF_SUBJECT_REVIEW_VERSIONS).map((version) => ({
    group: AUTHENTICATION_GROUP,
    version,
    resource: 'selfsubjectreviews',
    singularName: 'selfsubjectreview',
    kind: 'SelfSubjectReview',
    namespaced: false,
    verbs: ['create'],
    create(body, { user }) {
      checkSelfSubjectReview(body, version);
      const userInfo: Record<string, unknown> = {};
      if (user.name) userInfo.username = user.name;
      if (user.uid) userInfo.uid = user.uid;
      if (user.groups.length) userInfo.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length) userInfo.extra = structuredClone(user.extra);
      return {
        kind: 'SelfSubjectReview',
        apiVersion: `${AUTHENTICATION_GROUP}/${version}`,
        metadata: { creationTimestamp: rfc3339Seconds(clock.now()) },
        status: { userInfo },
      };
    },
  }));
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const given = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * What kube's decoder refuses in a SelfSubjectReview body (a 400, before the review is made; metadata is held to
 * ObjectMeta's types as every virtual resource's body is read): a status (the answer's own field, ignored when sent)
 * of other types than Go's, e.g.
 * `json: cannot unmarshal string into Go struct field SelfSubjectReview.status of type v1.SelfSubjectReviewStatus`.
 */
function checkSelfSubjectReview(body: KubeObject, version: string): void {
  const bad = (found: unknown, struct: string, path: string, type: string): Error =>
    goDecodeError('SelfSubjectReview', version, found, struct, path, type);
  const status = (body as Json).status;
  if (!given(status)) return;
  if (!isRecord(status)) throw bad(status, 'SelfSubjectReview', 'status', `${version}.SelfSubjectReviewStatus`);
  const info = status.userInfo;
  if (!given(info)) return;
  if (!isRecord(info)) throw bad(info, 'SelfSubjectReviewStatus', 'status.userInfo', 'v1.UserInfo');
  for (const k of ['username', 'uid'])
    if (given(info[k]) && typeof info[k] !== 'string') throw bad(info[k], 'UserInfo', `status.userInfo.${k}`, 'string');
  const strings = (v: unknown, path: string, type: string): void => {
    if (!given(v)) return;
    if (!Array.isArray(v)) throw bad(v, 'UserInfo', path, type);
    for (const s of v) if (typeof s !== 'string') throw bad(s, 'UserInfo', path, 'string');
  };
  strings(info.groups, 'status.userInfo.groups', '[]string');
  if (!given(info.extra)) return;
  if (!isRecord(info.extra)) throw bad(info.extra, 'UserInfo', 'status.userInfo.extra', 'map[string]v1.ExtraValue');
  for (const [k, v] of Object.entries(info.extra)) strings(v, `status.userInfo.extra.${k}`, 'v1.ExtraValue');
}

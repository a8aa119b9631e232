import { type Clock, realClock } from '@kapi/apimachinery';
import { rfc3339Seconds } from '@kapi/registry';
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
    create(_body, { user }) {
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

import type { Clock } from '@kapi/apimachinery';
import type { Authenticator } from '@kapi/authn';
import type { Authorizer } from '@kapi/authz';
import type { VirtualResource } from '../server/virtual-resource.ts';
import { selfSubjectAccessReviewResource } from './self-subject-access-review.ts';
import { selfSubjectReviewResources } from './self-subject-review.ts';
import { selfSubjectRulesReviewResource } from './self-subject-rules-review.ts';
import { localSubjectAccessReviewResource, subjectAccessReviewResource } from './subject-access-review.ts';
import { tokenReviewResource } from './token-review.ts';

/**
 * The review resources kube-apiserver always serves and kubectl auth uses: SelfSubjectReview (whoami; v1 and v1beta1),
 * SelfSubjectAccessReview and SelfSubjectRulesReview (can-i, can-i --list), SubjectAccessReview and
 * LocalSubjectAccessReview (authorization delegated by aggregated servers and webhooks), all answered by `authorizer`
 * (everything allowed when there is none, as the server then allows everything), and, when the server authenticates,
 * TokenReview (token checks delegated likewise) answered by `authenticator`.
 */
export function authReviewResources(
  options: { authorizer?: Authorizer; clock?: Clock; authenticator?: Authenticator; apiAudiences?: readonly string[] } = {},
): VirtualResource[] {
  return [
    ...selfSubjectReviewResources(options.clock ? { clock: options.clock } : {}),
    selfSubjectAccessReviewResource(options.authorizer),
    selfSubjectRulesReviewResource(options.authorizer),
    subjectAccessReviewResource(options.authorizer),
    localSubjectAccessReviewResource(options.authorizer),
    ...(options.authenticator
      ? [
          tokenReviewResource({
            authenticator: options.authenticator,
            ...(options.apiAudiences ? { apiAudiences: options.apiAudiences } : {}),
          }),
        ]
      : []),
  ];
}

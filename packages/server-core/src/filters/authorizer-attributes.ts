import type { UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes } from '@kapi/authz';
import type { RequestContext } from './context.ts';

const NO_USER: UserInfo = { name: '', groups: [] };

/** kube's error when the request-info filter has not run before a filter that needs it. */
export const NO_REQUEST_INFO = 'no RequestInfo found in the context';

/**
 * kube's GetAuthorizerAttributes: what the request wants to do, from `ctx.requestInfo` and the user
 * (`ctx.user`, or `user` when given). Throws when there is no RequestInfo (kube answers 500).
 */
export function authorizerAttributesFrom(ctx: RequestContext, user: UserInfo | undefined = ctx.user): AuthorizationAttributes {
  const info = ctx.requestInfo;
  if (!info) throw new Error(NO_REQUEST_INFO);
  return {
    user: user ?? NO_USER,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

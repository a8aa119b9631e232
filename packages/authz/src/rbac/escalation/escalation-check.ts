import { SYSTEM_MASTERS, type UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes, Authorizer } from '../../authorizer.ts';
import { RBAC_GROUP, type RoleRef } from '../types.ts';

/** kube's EscalationAllowed: members of system:masters (the server's own loopback identity among them) may grant anything. */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS);
}

/** An authorizer's answer is Allow; an authorizer that throws has not allowed (kube logs the error and refuses). */
async function allowed(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<boolean> {
  try {
    return (await authorizer.authorize(attrs)).decision === 'Allow';
  } catch {
    return false;
  }
}

function rbacAttributes(user: UserInfo, verb: string, resource: string, namespace: string, name: string): AuthorizationAttributes {
  return { user, verb, resourceRequest: true, namespace, apiGroup: RBAC_GROUP, apiVersion: '*', resource, subresource: '', name, path: '' };
}

/**
 * kube's RoleEscalationAuthorized: whether the authorizer allows the `escalate` verb on the role being written
 * (`roles` or `clusterroles`), with the request's namespace and name (kube takes the name from the request path,
 * so a create, whose path has none, asks about name "").
 */
export function roleEscalationAuthorized(
  authorizer: Authorizer,
  user: UserInfo,
  resource: 'roles' | 'clusterroles',
  namespace: string,
  name: string,
): Promise<boolean> {
  return allowed(authorizer, rbacAttributes(user, 'escalate', resource, namespace, name));
}

/**
 * kube's BindingAuthorized: whether the authorizer allows the `bind` verb on the referenced role, asked in the
 * binding's namespace ("" for a ClusterRoleBinding), so `bind` can be delegated per namespace and per role name.
 */
export async function bindingAuthorized(
  authorizer: Authorizer,
  user: UserInfo,
  roleRef: RoleRef,
  bindingNamespace: string,
): Promise<boolean> {
  const resource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : undefined;
  if (!resource) return false;
  const attrs = rbacAttributes(user, 'bind', resource, bindingNamespace, roleRef.name);
  return allowed(authorizer, { ...attrs, apiGroup: roleRef.apiGroup });
}

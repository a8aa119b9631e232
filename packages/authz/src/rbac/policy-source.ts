import type { UserInfo } from '@kapi/authn';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './types.ts';

/**
 * What the RBAC rule resolver reads: kube's RoleGetter, ClusterRoleGetter, RoleBindingLister and
 * ClusterRoleBindingLister, narrowed to the bindings that may concern one user.
 *
 * The binding methods may return more than the bindings naming the user (a source without an index may return
 * every binding): the resolver checks each binding's subjects itself. They must return every binding that names
 * the user by name, by one of its groups, or as a service account (`system:serviceaccount:<ns>:<name>`).
 * Reads are synchronous: the source is an in-memory view (RBACCache), as kube's informer listers are.
 */
export interface RBACPolicySource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  /** The ClusterRoleBindings that may name `user`. */
  clusterRoleBindingsFor(user: UserInfo): Iterable<ClusterRoleBinding>;
  /** The RoleBindings of `namespace` that may name `user`. */
  roleBindingsFor(user: UserInfo, namespace: string): Iterable<RoleBinding>;
}

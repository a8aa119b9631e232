import type { RBACCache } from '../rbac-cache.ts';
import { type PolicyRule, RBAC_GROUP, type RoleRef, type Subject } from '../types.ts';

/** The RBAC objects of a test policy, written into an RBACCache as its watches would (ADDED). */

const V = `${RBAC_GROUP}/v1`;

export const User = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
export const Group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
export const SA = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });
export const clusterRoleRef = (name: string): RoleRef => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });
export const roleRef = (name: string): RoleRef => ({ apiGroup: RBAC_GROUP, kind: 'Role', name });

export function addClusterRole(cache: RBACCache, name: string, rules: PolicyRule[]): void {
  cache.clusterRoles.apply('ADDED', { apiVersion: V, kind: 'ClusterRole', metadata: { name }, rules });
}

export function addRole(cache: RBACCache, namespace: string, name: string, rules: PolicyRule[]): void {
  cache.roles.apply('ADDED', { apiVersion: V, kind: 'Role', metadata: { name, namespace }, rules });
}

export function addClusterRoleBinding(cache: RBACCache, name: string, subjects: Subject[], ref: RoleRef): void {
  cache.clusterRoleBindings.apply('ADDED', { apiVersion: V, kind: 'ClusterRoleBinding', metadata: { name }, subjects, roleRef: ref });
}

export function addRoleBinding(cache: RBACCache, namespace: string, name: string, subjects: Subject[], ref: RoleRef): void {
  cache.roleBindings.apply('ADDED', { apiVersion: V, kind: 'RoleBinding', metadata: { name, namespace }, subjects, roleRef: ref });
}

import type { ResourceDefinition } from '@kapi/registry';
import { ClusterRoleResource } from './cluster-role.ts';
import { ClusterRoleBindingResource } from './cluster-role-binding.ts';
import { RoleResource } from './role.ts';
import { RoleBindingResource } from './role-binding.ts';

/** The four kinds of rbac.authorization.k8s.io/v1, for a server to serve together. */
export const rbacResources: readonly ResourceDefinition[] = Object.freeze([
  RoleResource,
  ClusterRoleResource,
  RoleBindingResource,
  ClusterRoleBindingResource,
] as unknown as ResourceDefinition[]);

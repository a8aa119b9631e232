import type { KubeObject } from '@kapi/apimachinery';
import type { RequestContext } from '@kapi/registry';
import type { Preconditions } from '@kapi/storage';

/**
 * What reconciliation needs of the store of one RBAC kind: registry Store's get, create, update and delete, so a
 * Store fits as it is. `ctx.namespace` is the object's namespace (none for cluster-scoped kinds). Failures are
 * StatusErrors (NotFound, AlreadyExists, Conflict…), as the Store throws them.
 */
export interface RbacObjectStore {
  get(ctx: RequestContext, name: string): Promise<KubeObject>;
  create(ctx: RequestContext, input: unknown): Promise<{ object: KubeObject }>;
  update(ctx: RequestContext, name: string, input: unknown): Promise<{ object: KubeObject }>;
  delete(ctx: RequestContext, name: string, opts?: { preconditions?: Preconditions }): Promise<unknown>;
  /**
   * Every object of the kind (`ctx` without a namespace: all namespaces). When present, reconciliation's first read of
   * each object comes from one list instead of a get per object; retries still get.
   */
  list?(ctx: RequestContext): Promise<{ items: readonly KubeObject[] }>;
}

/** The stores of the four RBAC kinds. */
export interface RbacStores {
  clusterRoles: RbacObjectStore;
  clusterRoleBindings: RbacObjectStore;
  roles: RbacObjectStore;
  roleBindings: RbacObjectStore;
  /**
   * The namespaces' store, when served: a namespaced role or binding is created after making sure its namespace
   * exists (kube's RoleModifier and RoleBindingClientAdapter call tryEnsureNamespace before each create).
   */
  namespaces?: Pick<RbacObjectStore, 'get' | 'create'>;
}

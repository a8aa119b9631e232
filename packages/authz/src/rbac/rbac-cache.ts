import type { KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import type { RBACPolicySource } from './policy-source.ts';
import { SubjectIndex } from './subject-index.ts';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './types.ts';

export type RBACEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * How one kind reaches the cache: each watch event, and the end of each list. Fits registry's `listAndWatch`:
 * `onEvent: (type, obj) => feed.apply(type, obj)`, `onList: async (items) => feed.listed(items)`.
 */
export interface RBACCacheFeed {
  /** ADDED and MODIFIED store the object (replacing the one of that namespace/name), DELETED drops it. */
  apply(type: RBACEventType, obj: KubeObject): void;
  /**
   * A list was handed on: the kind counts as synced. Given the list's items, the kind becomes exactly those
   * (objects deleted while no watch was open are dropped, listed ones stored).
   */
  listed(items?: readonly KubeObject[]): void;
  /** How many objects of the kind are held. */
  readonly size: number;
}

/** Objects of one kind by namespace ("" for cluster-scoped) and name, with hooks that keep indexes in step. */
class KindFeed<T extends KubeObject> implements RBACCacheFeed {
  readonly objects = new Map<string, Map<string, T>>();
  #size = 0;
  #listed = false;

  readonly #index: (namespace: string, name: string, obj: T) => void;
  readonly #unindex: (namespace: string, name: string, obj: T) => void;
  readonly #onListed: () => void;

  constructor(
    index: (namespace: string, name: string, obj: T) => void,
    unindex: (namespace: string, name: string, obj: T) => void,
    onListed: () => void,
  ) {
    this.#index = index;
    this.#unindex = unindex;
    this.#onListed = onListed;
  }

  get size(): number {
    return this.#size;
  }

  get isListed(): boolean {
    return this.#listed;
  }

  get(namespace: string, name: string): T | undefined {
    return this.objects.get(namespace)?.get(name);
  }

  apply(type: RBACEventType, obj: KubeObject): void {
    const name = obj?.metadata?.name;
    if (typeof name !== 'string' || name === '') return;
    const namespace = obj.metadata.namespace ?? '';
    if (type === 'DELETED') this.#delete(namespace, name);
    else this.#store(namespace, name, obj as T);
  }

  listed(items?: readonly KubeObject[]): void {
    if (items) {
      const keep = new Map<string, Set<string>>();
      for (const obj of items) {
        this.apply('ADDED', obj);
        const name = obj?.metadata?.name;
        if (typeof name !== 'string') continue;
        const ns = obj.metadata.namespace ?? '';
        let names = keep.get(ns);
        if (!names) {
          names = new Set();
          keep.set(ns, names);
        }
        names.add(name);
      }
      for (const [ns, byName] of this.objects) {
        for (const name of [...byName.keys()]) if (!keep.get(ns)?.has(name)) this.#delete(ns, name);
      }
    }
    if (!this.#listed) {
      this.#listed = true;
      this.#onListed();
    }
  }

  #store(namespace: string, name: string, obj: T): void {
    let byName = this.objects.get(namespace);
    if (!byName) {
      byName = new Map();
      this.objects.set(namespace, byName);
    }
    const old = byName.get(name);
    if (old === obj) return;
    if (old) this.#unindex(namespace, name, old);
    else this.#size++;
    byName.set(name, obj);
    this.#index(namespace, name, obj);
  }

  #delete(namespace: string, name: string): void {
    const byName = this.objects.get(namespace);
    const old = byName?.get(name);
    if (!byName || !old) return;
    byName.delete(name);
    if (byName.size === 0) this.objects.delete(namespace);
    this.#size--;
    this.#unindex(namespace, name, old);
  }
}

/**
 * The RBAC objects held in memory for the authorizer (kube's RBAC informers and listers): Roles by namespace and
 * name, ClusterRoles by name, ClusterRoleBindings by subject (user name, group, service account) and RoleBindings
 * by namespace, then subject. Fed by events from the four kinds' watches (`roles.apply`, …); `synced` once each
 * kind was listed. Objects are kept as given (frozen cache values are never copied nor changed).
 */
export class RBACCache implements RBACPolicySource {
  readonly #roles: KindFeed<Role>;
  readonly #clusterRoles: KindFeed<ClusterRole>;
  readonly #roleBindings: KindFeed<RoleBinding>;
  readonly #clusterRoleBindings: KindFeed<ClusterRoleBinding>;
  readonly #clusterRoleBindingIndex = new SubjectIndex<ClusterRoleBinding>();
  readonly #roleBindingIndex = new Map<string, SubjectIndex<RoleBinding>>();
  readonly #synced: Promise<void>;
  #resolveSynced!: () => void;

  constructor() {
    this.#synced = new Promise((resolve) => {
      this.#resolveSynced = resolve;
    });
    const onListed = () => {
      if (this.synced) this.#resolveSynced();
    };
    const none = () => {};
    this.#roles = new KindFeed<Role>(none, none, onListed);
    this.#clusterRoles = new KindFeed<ClusterRole>(none, none, onListed);
    this.#clusterRoleBindings = new KindFeed<ClusterRoleBinding>(
      (_ns, name, b) => this.#clusterRoleBindingIndex.add(name, b, ''),
      (_ns, name, b) => this.#clusterRoleBindingIndex.remove(name, b, ''),
      onListed,
    );
    this.#roleBindings = new KindFeed<RoleBinding>(
      (ns, name, b) => {
        let index = this.#roleBindingIndex.get(ns);
        if (!index) {
          index = new SubjectIndex();
          this.#roleBindingIndex.set(ns, index);
        }
        index.add(name, b, ns);
      },
      (ns, name, b) => {
        const index = this.#roleBindingIndex.get(ns);
        if (!index) return;
        index.remove(name, b, ns);
        if (index.subjects === 0) this.#roleBindingIndex.delete(ns);
      },
      onListed,
    );
  }

  get roles(): RBACCacheFeed {
    return this.#roles;
  }
  get clusterRoles(): RBACCacheFeed {
    return this.#clusterRoles;
  }
  get roleBindings(): RBACCacheFeed {
    return this.#roleBindings;
  }
  get clusterRoleBindings(): RBACCacheFeed {
    return this.#clusterRoleBindings;
  }

  /** Whether all four kinds were listed at least once. */
  get synced(): boolean {
    return this.#roles.isListed && this.#clusterRoles.isListed && this.#roleBindings.isListed && this.#clusterRoleBindings.isListed;
  }

  /** Resolves once `synced`. */
  whenSynced(): Promise<void> {
    return this.#synced;
  }

  getRole(namespace: string, name: string): Role | undefined {
    return namespace === '' ? undefined : this.#roles.get(namespace, name);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.#clusterRoles.get('', name);
  }

  clusterRoleBindingsFor(user: UserInfo): ClusterRoleBinding[] {
    return this.#clusterRoleBindingIndex.candidates(user);
  }

  roleBindingsFor(user: UserInfo, namespace: string): RoleBinding[] {
    return this.#roleBindingIndex.get(namespace)?.candidates(user) ?? [];
  }
}

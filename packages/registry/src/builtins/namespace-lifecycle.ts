import { type Clock, isNotFound, type KubeObject, newForbidden, newNotFound, realClock, StatusError } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.ts';
import type { Store } from '../store/store.ts';
import type { RequestContext } from '../store/types.ts';
import type { Namespace } from './namespace.ts';

/** core/v1 NamespaceTerminatingCause: the cause type of the 403 for content created in a terminating namespace. */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** kube's forceLiveLookupTTL: how long a namespace deleted through this server is read live while the cache says Active. */
const FORCE_LIVE_LOOKUP_MS = 30_000;
/** kube's LRUExpireCache size for those namespaces. */
const FORCE_LIVE_LOOKUP_ENTRIES = 100;

export interface NamespaceLifecycleOptions {
  /** Times the live-lookup window after a namespace delete (default: the real clock). */
  clock?: Clock;
}

/**
 * The create half of plugin/pkg/admission/namespace/lifecycle: content of a namespaced kind may only be created in
 * a namespace that exists and is not terminating. Pass `beforeCreate` as the StoreOptions hook of every namespaced
 * Store, and `namespaceDeleted` as NamespaceRegistry's `beforeDelete`. kube-apiserver also creates default,
 * kube-system and kube-public at start-up; kapi does not, so a server should create the namespaces it wants before
 * serving. Refusing to delete them is NamespaceRegistry.delete's part.
 *
 * Like kube's plugin with its informer's lister, it decides from the namespaces' cache (a read at resourceVersion
 * "0", which a watch cache answers from memory) and reads the backend (a consistent read) only when the cache lacks
 * the namespace — it may be a moment old — or may still show Active a namespace deleted through this server lately.
 */
export class NamespaceLifecycle {
  readonly #namespaces: Store<Namespace>;
  readonly #clock: Clock;
  /** kube's forceLiveLookupCache: namespace → until when (ms) a cached Active phase is not trusted. Oldest first. */
  readonly #liveLookups = new Map<string, number>();

  constructor(namespaces: Store<Namespace>, options: NamespaceLifecycleOptions = {}) {
    this.#namespaces = namespaces;
    this.#clock = options.clock ?? realClock;
  }

  /**
   * NamespaceRegistry's `beforeDelete` hook: the cache may show the namespace Active a little longer, so creates into
   * it read the backend for a while (kube adds it to its force-live-lookup cache for 30 s).
   */
  readonly namespaceDeleted = (name: string): void => {
    this.#liveLookups.delete(name);
    this.#liveLookups.set(name, this.#clock.now() + FORCE_LIVE_LOOKUP_MS);
    const oldest = this.#liveLookups.keys().next().value;
    if (this.#liveLookups.size > FORCE_LIVE_LOOKUP_ENTRIES && oldest !== undefined) this.#liveLookups.delete(oldest);
  };

  /** The StoreOptions.beforeCreate hook; cluster-scoped kinds (Namespace itself included) pass untouched. */
  readonly beforeCreate = async (ctx: RequestContext, obj: KubeObject, def: ResourceDefinition): Promise<void> => {
    if (!def.namespaced) return;
    const namespace = obj.metadata.namespace || ctx.namespace;
    // Validation reports the missing namespace.
    if (!namespace) return;
    let ns = await this.#cached(namespace);
    // kube sleeps 50 ms for its informer before the live read; a consistent read is one round trip and never staler.
    if (!ns || (ns.status?.phase !== 'Terminating' && this.#liveLookupForced(namespace))) ns = await this.#live(namespace);
    if (ns.status?.phase !== 'Terminating') return;
    // admission.NewForbidden names the object by generateName when it has no name yet.
    const name = obj.metadata.name || obj.metadata.generateName || 'Unknown';
    const forbidden = newForbidden(
      def.groupResource,
      name,
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    );
    const cause = {
      reason: NAMESPACE_TERMINATING_CAUSE,
      message: `namespace ${namespace} is being terminated`,
      field: 'metadata.namespace',
    };
    throw new StatusError({ ...forbidden.status, details: { ...forbidden.status.details, causes: [cause] } });
  };

  /** The namespace as the cache has it (resourceVersion "0": any age), or undefined when the cache does not hold it. */
  async #cached(name: string): Promise<Namespace | undefined> {
    try {
      return await this.#namespaces.get({}, name, { resourceVersion: '0' });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** The namespace as the backend has it now (a consistent read); 404 for the namespace when it does not exist. */
  async #live(name: string): Promise<Namespace> {
    try {
      return await this.#namespaces.get({}, name);
    } catch (err) {
      throw isNotFound(err) ? newNotFound({ group: '', resource: 'namespaces' }, name) : err;
    }
  }

  #liveLookupForced(name: string): boolean {
    const until = this.#liveLookups.get(name);
    if (until === undefined) return false;
    if (until > this.#clock.now()) return true;
    this.#liveLookups.delete(name);
    return false;
  }
}

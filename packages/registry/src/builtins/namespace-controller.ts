import { type Clock, isNotFound } from '@kapi/apimachinery';
import type { Store } from '../store/store.ts';
import { rfc3339Seconds } from '../store/timestamp.ts';
import { ControllerLoop } from './controller-loop.ts';
import { listAndWatch } from './list-and-watch.ts';
import { FINALIZER_KUBERNETES, type Namespace } from './namespace.ts';
import { type ContentTotals, updateNamespaceConditions } from './namespace-conditions.ts';
import type { NamespaceRegistry } from './namespace-registry.ts';

export interface NamespaceControllerOptions {
  namespaces: NamespaceRegistry;
  /** Namespaced Stores whose objects go with their namespace; `register` adds more. */
  stores?: Iterable<Store>;
  /** Timers of retries (default: the real clock). */
  clock?: Clock;
  /** How long before a namespace whose content is not gone yet (finalizers) or whose sync failed is looked at again. Default 1000. */
  retryAfterMs?: number;
  /** Told of every failed sync or list; the work is retried. */
  onError?: (err: unknown, namespace?: string) => void;
}

/**
 * The namespace controller of kube-controller-manager (pkg/controller/namespace), in process: it watches
 * namespaces and, for each terminating one that still has the `kubernetes` finalizer, deletes everything in it
 * from every registered Store, waits until all of it is gone (objects kept by finalizers keep the namespace
 * Terminating), then removes `kubernetes` from spec.finalizers, which removes the namespace. Each pass records
 * its outcome in the namespace's status conditions (NamespaceContentRemaining, NamespaceFinalizersRemaining,
 * NamespaceDeletionContentFailure, …) as kube's deleter does.
 */
export class NamespaceController {
  readonly #registry: NamespaceRegistry;
  readonly #stores = new Set<Store>();
  readonly #loop: ControllerLoop;

  constructor(options: NamespaceControllerOptions) {
    this.#registry = options.namespaces;
    this.#loop = new ControllerLoop(options, (name) => this.#sync(name));
    for (const s of options.stores ?? []) this.register(s);
  }

  /** Adds a namespaced Store whose objects are deleted with their namespace. */
  register(store: Store): void {
    if (!store.definition.namespaced) throw new Error(`${store.definition.plural} is cluster-scoped and has no namespace content`);
    this.#stores.add(store);
  }

  /** Drops a registered Store (its kind is no longer served): a namespace deleted later leaves its objects alone. */
  unregister(store: Store): void {
    this.#stores.delete(store);
  }

  get running(): boolean {
    return this.#loop.running;
  }

  start(): void {
    const queue = this.#loop.queue;
    this.#loop.start((loop) => {
      void listAndWatch(this.#registry.store, {
        ...loop,
        onEvent: (type, ns) => type !== 'DELETED' && ns.metadata.deletionTimestamp && ns.metadata.name && queue.add(ns.metadata.name),
      });
    });
  }

  /** Stops watching and drops pending retries; a sync under way finishes. */
  stop(): void {
    this.#loop.stop();
  }

  /** namespacedResourcesDeleter.Delete; true when content remains and the namespace is to be looked at again. */
  async #sync(name: string): Promise<boolean> {
    let ns: Namespace;
    try {
      ns = await this.#registry.store.get({}, name);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return false;
    const uid = ns.metadata.uid;
    const finalizers = ns.spec?.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_KUBERNETES)) {
      // Finalized already (by us or a client): delete it again, which removes it once nothing else holds it.
      if (finalizers.length === 0) await this.#deleteNamespace(name, uid);
      return false;
    }
    const { totals, errors } = await this.#deleteAllContent(name);
    ns = await this.#updateConditions(ns, totals);
    // kube's deleteAllContent returns the aggregate of the resource types that failed, after the conditions.
    if (errors.length) throw errors.length === 1 ? errors[0] : new AggregateError(errors, `[${totals.deleteErrors.join(', ')}]`);
    if (totals.remainingByResource.size) return true;
    // Conditional on the namespace as read: a change meanwhile is a conflict, and the sync is retried.
    const next = { ...ns, spec: { ...ns.spec, finalizers: finalizers.filter((f) => f !== FINALIZER_KUBERNETES) } };
    const res = await this.#registry.finalize(name, next);
    if (!res.deleted && (res.object.spec?.finalizers ?? []).length === 0) await this.#deleteNamespace(name, uid);
    return false;
  }

  /**
   * deleteAllContent: every Store's objects in the namespace deleted, then counted with the finalizers that keep
   * them; a Store that fails is noted and the others still go. Objects left without any finalizer are an error
   * (deleteAllContentForGroupVersionResource's "unexpected items still remain").
   */
  async #deleteAllContent(namespace: string): Promise<{ totals: ContentTotals; errors: unknown[] }> {
    const remainingByResource = new Map<string, number>();
    const remainingByFinalizer = new Map<string, number>();
    const deleteErrors: string[] = [];
    const errors: unknown[] = [];
    for (const store of this.#stores) {
      const def = store.definition;
      try {
        await store.deleteCollection({ namespace }, {}, { propagationPolicy: 'Background' });
        const items = (await store.list({ namespace })).items;
        if (!items.length) continue;
        remainingByResource.set(`${def.plural}.${def.group}`, items.length);
        let finalized = false;
        for (const item of items)
          for (const f of item.metadata.finalizers ?? []) {
            remainingByFinalizer.set(f, (remainingByFinalizer.get(f) ?? 0) + 1);
            finalized = true;
          }
        if (!finalized)
          throw new Error(
            `unexpected items still remain in namespace: ${namespace} for gvr: ${def.group}/${def.storageVersion.name}, Resource=${def.plural}`,
          );
      } catch (err) {
        errors.push(err);
        deleteErrors.push(err instanceof Error ? err.message : String(err));
      }
    }
    return { totals: { remainingByResource, remainingByFinalizer, deleteErrors }, errors };
  }

  /** The deleter's conditionUpdater.Update: a status write only when a condition changed; a failed write is reported, not fatal. */
  async #updateConditions(ns: Namespace, totals: ContentTotals): Promise<Namespace> {
    const conditions = updateNamespaceConditions(ns.status?.conditions, totals, rfc3339Seconds(this.#loop.clock.now()));
    if (!conditions) return ns;
    try {
      const res = await this.#registry.store.update(
        {},
        ns.metadata.name ?? '',
        { ...ns, status: { ...ns.status, conditions } },
        {
          subresource: 'status',
        },
      );
      return res.object;
    } catch (err) {
      this.#loop.onError(err, ns.metadata.name);
      return ns;
    }
  }

  async #deleteNamespace(name: string, uid: string | undefined): Promise<void> {
    try {
      await this.#registry.delete(name, { preconditions: { uid } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

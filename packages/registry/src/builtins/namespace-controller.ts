import { type Clock, isNotFound, type KubeObject, realClock, type TimerHandle } from '@kapi/apimachinery';
import type { Store } from '../store/store.ts';
import { FINALIZER_KUBERNETES, type Namespace } from './namespace.ts';
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
 * Terminating), then removes `kubernetes` from spec.finalizers, which removes the namespace.
 */
export class NamespaceController {
  readonly #registry: NamespaceRegistry;
  readonly #stores = new Set<Store>();
  readonly #clock: Clock;
  readonly #retryAfterMs: number;
  readonly #onError: (err: unknown, namespace?: string) => void;
  readonly #queue = new Set<string>();
  readonly #timers = new Map<string, TimerHandle>();
  #worker: Promise<void> | undefined;
  #abort: AbortController | undefined;
  #wake: (() => void) | undefined;

  constructor(options: NamespaceControllerOptions) {
    this.#registry = options.namespaces;
    this.#clock = options.clock ?? realClock;
    this.#retryAfterMs = options.retryAfterMs ?? 1000;
    this.#onError = options.onError ?? (() => {});
    for (const s of options.stores ?? []) this.register(s);
  }

  /** Adds a namespaced Store whose objects are deleted with their namespace. */
  register(store: Store): void {
    if (!store.definition.namespaced) throw new Error(`${store.definition.plural} is cluster-scoped and has no namespace content`);
    this.#stores.add(store);
  }

  get running(): boolean {
    return this.#abort !== undefined;
  }

  start(): void {
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    void this.#watchLoop(abort.signal);
  }

  /** Stops watching and drops pending retries; a sync under way finishes. */
  stop(): void {
    this.#abort?.abort();
    this.#abort = undefined;
    for (const t of this.#timers.values()) this.#clock.clearTimeout(t);
    this.#timers.clear();
    this.#queue.clear();
    this.#wake?.();
  }

  /** List, then watch from the list's resourceVersion; any end of the watch starts over (after a pause if it failed). */
  async #watchLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await this.#registry.store.list({});
        for (const ns of list.items) this.#observe(ns);
        const watch = this.#registry.store.watch({}, { resourceVersion: list.metadata.resourceVersion ?? '', signal });
        for await (const ev of watch) {
          if (signal.aborted) break;
          // An expired or failed watch: list again.
          if (ev.type === 'ERROR') break;
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.#observe(ev.object);
        }
      } catch (err) {
        if (signal.aborted) return;
        this.#onError(err);
        await this.#pause(signal);
      }
    }
  }

  #pause(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(done, this.#retryAfterMs);
      function done(): void {
        signal.removeEventListener('abort', cancel);
        resolve();
      }
      const cancel = (): void => {
        this.#clock.clearTimeout(timer);
        done();
      };
      signal.addEventListener('abort', cancel);
    });
  }

  #observe(obj: KubeObject): void {
    if (obj.metadata.deletionTimestamp && obj.metadata.name) this.#enqueue(obj.metadata.name);
  }

  #enqueue(name: string): void {
    if (!this.#abort) return;
    this.#queue.add(name);
    this.#worker ??= this.#work();
  }

  /** One worker: a namespace is never synced twice at once, and a name queued while it runs is synced again after. */
  async #work(): Promise<void> {
    try {
      for (let name = first(this.#queue); name !== undefined && this.#abort; name = first(this.#queue)) {
        this.#queue.delete(name);
        try {
          if (await this.#sync(name)) this.#retryLater(name);
        } catch (err) {
          this.#onError(err, name);
          this.#retryLater(name);
        }
      }
    } finally {
      this.#worker = undefined;
    }
    // Something queued between the loop's last check and now.
    if (this.#queue.size && this.#abort) this.#worker ??= this.#work();
  }

  #retryLater(name: string): void {
    if (!this.#abort || this.#timers.has(name)) return;
    this.#timers.set(
      name,
      this.#clock.setTimeout(() => {
        this.#timers.delete(name);
        this.#enqueue(name);
      }, this.#retryAfterMs),
    );
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
    let remaining = 0;
    for (const store of this.#stores) {
      await store.deleteCollection({ namespace: name }, {}, { propagationPolicy: 'Background' });
      remaining += (await store.list({ namespace: name }, { limit: 1 })).items.length;
    }
    if (remaining) return true;
    // Conditional on the namespace as read: a change meanwhile is a conflict, and the sync is retried.
    const next = { ...ns, spec: { ...ns.spec, finalizers: finalizers.filter((f) => f !== FINALIZER_KUBERNETES) } };
    const res = await this.#registry.finalize(name, next);
    if (!res.deleted && (res.object.spec?.finalizers ?? []).length === 0) await this.#deleteNamespace(name, uid);
    return false;
  }

  async #deleteNamespace(name: string, uid: string | undefined): Promise<void> {
    try {
      await this.#registry.delete(name, { preconditions: { uid } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

function first(set: Set<string>): string | undefined {
  for (const v of set) return v;
  return undefined;
}

import { type Clock, isAlreadyExists, isForbidden, isNotFound, type KubeObject, realClock, type TimerHandle } from '@kapi/apimachinery';
import type { Store } from '../store/store.ts';
import type { Namespace } from './namespace.ts';
import { NAMESPACE_TERMINATING_CAUSE } from './namespace-lifecycle.ts';
import type { ServiceAccount } from './service-account.ts';

export interface ServiceAccountsControllerOptions {
  namespaces: Store<Namespace>;
  serviceAccounts: Store<ServiceAccount>;
  /** The accounts every namespace gets (kube's controller manager configures just `default`). */
  names?: readonly string[];
  /** Timers of retries (default: the real clock). */
  clock?: Clock;
  /** How long before a namespace whose sync failed, or a watch that failed, is tried again. Default 1000. */
  retryAfterMs?: number;
  /** Told of every failed sync or list; the work is retried. */
  onError?: (err: unknown, namespace?: string) => void;
}

/**
 * The serviceaccounts controller of kube-controller-manager (pkg/controller/serviceaccount), in process: it watches
 * namespaces and service accounts and makes sure every Active namespace has the `default` ServiceAccount — created
 * when the namespace appears (or was there at start) and again when it is deleted. Terminating namespaces are
 * left alone; an account that exists already, or a namespace that began terminating meanwhile (its 403), is no error.
 */
export class ServiceAccountsController {
  readonly #namespaces: Store<Namespace>;
  readonly #serviceAccounts: Store<ServiceAccount>;
  readonly #names: readonly string[];
  readonly #clock: Clock;
  readonly #retryAfterMs: number;
  readonly #onError: (err: unknown, namespace?: string) => void;
  readonly #queue = new Set<string>();
  readonly #timers = new Map<string, TimerHandle>();
  #worker: Promise<void> | undefined;
  #abort: AbortController | undefined;

  constructor(options: ServiceAccountsControllerOptions) {
    this.#namespaces = options.namespaces;
    this.#serviceAccounts = options.serviceAccounts;
    this.#names = options.names ?? ['default'];
    this.#clock = options.clock ?? realClock;
    this.#retryAfterMs = options.retryAfterMs ?? 1000;
    this.#onError = options.onError ?? (() => {});
  }

  get running(): boolean {
    return this.#abort !== undefined;
  }

  start(): void {
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    // Every namespace listed or changed is looked at (kube's namespace add/update handlers).
    void this.#watchLoop(this.#namespaces, (type, ns) => type !== 'DELETED' && this.#enqueue(ns.metadata.name), abort.signal);
    // A managed account deleted: its namespace is looked at again. A relist may have missed deletions: all are.
    void this.#watchLoop(
      this.#serviceAccounts,
      (type, sa) => type === 'DELETED' && this.#names.includes(sa.metadata.name ?? '') && this.#enqueue(sa.metadata.namespace),
      abort.signal,
      async () => {
        for (const ns of (await this.#namespaces.list({})).items) this.#enqueue(ns.metadata.name);
      },
    );
  }

  /** Stops watching and drops pending retries; a sync under way finishes. */
  stop(): void {
    this.#abort?.abort();
    this.#abort = undefined;
    for (const t of this.#timers.values()) this.#clock.clearTimeout(t);
    this.#timers.clear();
    this.#queue.clear();
  }

  /** List, then watch from the list's resourceVersion; any end of the watch starts over (after a pause if it failed). */
  async #watchLoop(
    store: Store,
    onEvent: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject) => unknown,
    signal: AbortSignal,
    onList?: () => Promise<void>,
  ): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await store.list({});
        for (const obj of list.items) onEvent('ADDED', obj);
        await onList?.();
        const watch = store.watch({}, { resourceVersion: list.metadata.resourceVersion ?? '', signal });
        for await (const ev of watch) {
          if (signal.aborted) break;
          // An expired or failed watch: list again.
          if (ev.type === 'ERROR') break;
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED') onEvent(ev.type, ev.object);
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

  #enqueue(name: string | undefined): void {
    if (!this.#abort || !name) return;
    this.#queue.add(name);
    this.#worker ??= this.#work();
  }

  /** One worker: a namespace is never synced twice at once, and a name queued while it runs is synced again after. */
  async #work(): Promise<void> {
    try {
      for (let name = first(this.#queue); name !== undefined && this.#abort; name = first(this.#queue)) {
        this.#queue.delete(name);
        try {
          await this.#sync(name);
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

  /** syncNamespace: each managed account missing from an Active namespace is created. */
  async #sync(namespace: string): Promise<void> {
    let ns: Namespace;
    try {
      ns = await this.#namespaces.get({}, namespace);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (ns.metadata.deletionTimestamp || (ns.status?.phase ?? 'Active') !== 'Active') return;
    for (const name of this.#names) {
      try {
        await this.#serviceAccounts.get({ namespace }, name);
        continue;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      try {
        await this.#serviceAccounts.create({ namespace }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
      } catch (err) {
        if (isAlreadyExists(err) || isNamespaceTerminating(err)) continue;
        throw err;
      }
    }
  }
}

function isNamespaceTerminating(err: unknown): boolean {
  if (!isForbidden(err)) return false;
  // A StatusCause's type is `reason` on the wire.
  const causes = (err as { status?: { details?: { causes?: { reason?: string }[] } } }).status?.details?.causes ?? [];
  return causes.some((c) => c.reason === NAMESPACE_TERMINATING_CAUSE);
}

function first(set: Set<string>): string | undefined {
  for (const v of set) return v;
  return undefined;
}

import { type Clock, isAlreadyExists, isForbidden, isNotFound } from '@kapi/apimachinery';
import type { Store } from '../store/store.ts';
import { ControllerLoop } from './controller-loop.ts';
import { listAndWatch } from './list-and-watch.ts';
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
  readonly #loop: ControllerLoop;

  constructor(options: ServiceAccountsControllerOptions) {
    this.#namespaces = options.namespaces;
    this.#serviceAccounts = options.serviceAccounts;
    this.#names = options.names ?? ['default'];
    this.#loop = new ControllerLoop(options, (ns) => this.#sync(ns));
  }

  get running(): boolean {
    return this.#loop.running;
  }

  start(): void {
    this.#loop.start((loop) => {
      // Every namespace listed or changed is looked at (kube's namespace add/update handlers).
      void listAndWatch(this.#namespaces, { ...loop, onEvent: (type, ns) => type !== 'DELETED' && this.#enqueue(ns.metadata.name) });
      // A managed account deleted: its namespace is looked at again. A relist may have missed deletions: all are.
      void listAndWatch(this.#serviceAccounts, {
        ...loop,
        onEvent: (type, sa) => type === 'DELETED' && this.#names.includes(sa.metadata.name ?? '') && this.#enqueue(sa.metadata.namespace),
        onList: async () => {
          for (const ns of (await this.#namespaces.list({})).items) this.#enqueue(ns.metadata.name);
        },
      });
    });
  }

  /** Stops watching and drops pending retries; a sync under way finishes. */
  stop(): void {
    this.#loop.stop();
  }

  #enqueue(name: string | undefined): void {
    if (name) this.#loop.queue.add(name);
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

import { type Clock, type KubeObject, realClock, type TimerHandle } from '@kapi/apimachinery';
import { ControllerLoop, type InformerLoop, type ListWatchSource, listAndWatch, type Store } from '@kapi/registry';
import { canonicalText } from './quantity.ts';
import { hasScopes } from './quota-check.ts';
import type { QuotaStore } from './quota-evaluator.ts';
import { countedResource, type GroupResource, storeName } from './quota-names.ts';
import type { ResourceList, ResourceQuota } from './resource-quota.ts';

/** What the controller lists objects with: a registry Store of a counted resource. */
export type CountedStore = Pick<Store<KubeObject>, 'list'> & ListWatchSource & { readonly definition?: { readonly namespaced: boolean } };

export interface QuotaControllerOptions {
  /** The ResourceQuota store. */
  quotas: QuotaStore;
  /** The store of a counted resource by its `plural[.group]` name; undefined when it is not served (then it has no usage). */
  store: (resource: string) => CountedStore | undefined;
  /** Timers of the resync and of retries. */
  clock?: Clock;
  /** How often every quota is recalculated (kube's --resource-quota-sync-period). Default 5 minutes. */
  resyncPeriodMs?: number;
  /** Pause before a failed sync or watch is retried. Default 1000. */
  retryAfterMs?: number;
  onError?: (err: unknown, key?: string) => void;
}

/** Equal ResourceLists: the same names with equal quantities (kube's quota.Equals). */
function equalLists(a: ResourceList = {}, b: ResourceList = {}): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && canonicalText(a[k] ?? 0) === canonicalText(b[k] ?? 0));
}

const keyOf = (rq: KubeObject) => `${rq.metadata.namespace ?? ''}/${rq.metadata.name ?? ''}`;

/**
 * kube's resourcequota controller, for object counts: keeps each quota's status.hard equal to spec.hard and its
 * status.used to the number of objects of each counted resource in its namespace. A quota is synced when it is
 * created, when its spec.hard differs from its status.hard, every resync period, and (kube's replenishment) when an
 * object of a resource it counts is deleted. Usage of names it cannot count (cpu, pods, a resource not served) keeps
 * what status.used said, as kube's does for resources without an evaluator.
 */
export class QuotaController {
  readonly #options: QuotaControllerOptions;
  readonly #loop: ControllerLoop;
  readonly #clock: Clock;
  /** Quotas by key, as last seen (for the resync and the replenishment). */
  readonly #known = new Map<string, ResourceQuota>();
  /** Counted resources whose deletions are watched. */
  readonly #watched = new Set<string>();
  #informers: InformerLoop | undefined;
  #resync: TimerHandle | undefined;

  constructor(options: QuotaControllerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#loop = new ControllerLoop(
      { clock: this.#clock, retryAfterMs: options.retryAfterMs ?? 1000, onError: options.onError ?? (() => {}) },
      (key) => this.sync(key),
    );
  }

  /** Starts watching quotas and the resources they count; resolves when the quotas were listed once. */
  start(): Promise<void> {
    return new Promise((listed) => {
      this.#loop.start((loop) => {
        this.#informers = loop;
        void listAndWatch(this.#options.quotas, {
          ...loop,
          onEvent: (type, obj) => this.#onQuota(type, obj as ResourceQuota),
          onList: () => listed(),
        });
      });
      this.#scheduleResync();
    });
  }

  stop(): void {
    this.#loop.stop();
    this.#informers = undefined;
    if (this.#resync !== undefined) this.#clock.clearTimeout(this.#resync);
    this.#resync = undefined;
    this.#watched.clear();
  }

  /** Resolves when no sync is queued or running. */
  idle(): Promise<void> {
    return this.#loop.queue.idle();
  }

  #onQuota(type: 'ADDED' | 'MODIFIED' | 'DELETED', rq: ResourceQuota): void {
    const key = keyOf(rq);
    if (type === 'DELETED') {
      this.#known.delete(key);
      return;
    }
    this.#known.set(key, rq);
    for (const name of Object.keys(rq.spec?.hard ?? {})) {
      const gr = countedResource(name);
      if (gr) this.#watchDeletions(gr);
    }
    // A write of status alone (the controller's own, admission's charges) needs no sync.
    if (type === 'ADDED' || !equalLists(rq.spec?.hard, rq.status?.hard)) this.#loop.queue.add(key);
  }

  /** Replenishment: a deleted object frees its count in every quota of its namespace that counts its resource. */
  #watchDeletions(gr: GroupResource): void {
    const name = storeName(gr);
    const loop = this.#informers;
    if (!loop || this.#watched.has(name)) return;
    const store = this.#options.store(name);
    if (!store) return;
    this.#watched.add(name);
    void listAndWatch(store, {
      ...loop,
      onEvent: (type, obj) => {
        if (type !== 'DELETED') return;
        const ns = obj.metadata.namespace ?? '';
        for (const [key, rq] of this.#known)
          if (rq.metadata.namespace === ns && Object.keys(rq.spec?.hard ?? {}).some((k) => sameResource(countedResource(k), gr)))
            this.#loop.queue.add(key);
      },
    });
  }

  #scheduleResync(): void {
    const period = this.#options.resyncPeriodMs ?? 5 * 60_000;
    this.#resync = this.#clock.setTimeout(() => {
      if (!this.#loop.running) return;
      for (const key of this.#known.keys()) this.#loop.queue.add(key);
      this.#scheduleResync();
    }, period);
  }

  /** syncResourceQuota: recalculates one quota's usage and writes its status if it changed (with its resourceVersion). */
  async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    let rq: ResourceQuota;
    try {
      rq = (await this.#options.quotas.get({ namespace }, name)) as ResourceQuota;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
    const hard: ResourceList = { ...rq.spec?.hard };
    const used: ResourceList = { ...rq.status?.used };
    const counts = new Map<string, number>();
    for (const resourceName of Object.keys(hard)) {
      const gr = countedResource(resourceName);
      if (!gr) continue;
      const storeKey = storeName(gr);
      const store = this.#options.store(storeKey);
      if (!store) continue;
      this.#watchDeletions(gr);
      // A scoped quota matches no object of a counted resource, and a namespace holds no cluster-scoped one: zero.
      const none = hasScopes(rq) || store.definition?.namespaced === false;
      if (!counts.has(storeKey)) counts.set(storeKey, none ? 0 : (await store.list({ namespace })).items.length);
      used[resourceName] = String(counts.get(storeKey));
    }
    // Only what the quota limits is reported.
    for (const k of Object.keys(used)) if (!Object.hasOwn(hard, k)) delete used[k];
    if (equalLists(rq.status?.hard, hard) && equalLists(rq.status?.used, used)) return;
    const next = { ...rq, status: { hard, used } };
    await this.#options.quotas.update({ namespace }, name, next, { subresource: 'status', fieldManager: 'kube-controller-manager' });
  }
}

function sameResource(a: GroupResource | undefined, b: GroupResource): boolean {
  return a !== undefined && a.group === b.group && a.resource === b.resource;
}

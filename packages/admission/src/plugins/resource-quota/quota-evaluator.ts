import { type Clock, type KubeObject, newInternalError, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import type { AdmissionAttributes } from '../../attributes.ts';
import { checkRequest, type LimitedResource } from './quota-check.ts';
import type { ResourceQuota } from './resource-quota.ts';

/** What quota admission and the quota controller need of the ResourceQuota store (a registry Store). */
export type QuotaStore = Pick<Store<KubeObject>, 'list' | 'get' | 'update' | 'watch'>;

/** kube's quotaEvaluator retries the status writes that lost a race this many times. */
const RETRIES = 3;
/** How long a request waits for its turn and its check before it fails (kube's evaluator gives up after 10s). */
const EVALUATE_TIMEOUT_MS = 10_000;

/** A request not yet decided (kube's defaultDeny): it waits for the status writes its charge is in. */
const PENDING = Symbol('pending');

interface Waiter {
  readonly attrs: AdmissionAttributes;
  /** null: admitted. */
  result: typeof PENDING | null | unknown;
  readonly settle: (result: unknown) => void;
}

/**
 * kube's quotaEvaluator for object counts. Requests are queued by namespace and one worker per namespace takes all
 * that wait as one batch: it reads the namespace's quotas from the store, checks each request in turn against the
 * usage the earlier ones of the batch charged, and writes each changed quota's status.used once, with the
 * resourceVersion it read as precondition. The quotas whose write failed (another server, the quota controller wrote
 * them) are read again and the batch is checked again against them, up to three times. So one process never races
 * itself, and the preconditions catch everyone else: concurrent creates never exceed a quota. A dry run is checked
 * and not charged.
 */
export class QuotaEvaluator {
  readonly #store: () => QuotaStore;
  readonly #clock: Clock;
  /** Requests waiting for their namespace's next batch. */
  readonly #work = new Map<string, Waiter[]>();
  /** Namespaces whose worker runs. */
  readonly #inProgress = new Set<string>();

  readonly #limited: readonly LimitedResource[];

  constructor(store: () => QuotaStore, clock: Clock = realClock, limited: readonly LimitedResource[] = []) {
    this.#store = store;
    this.#clock = clock;
    this.#limited = limited;
  }

  /** Resolves when the create fits every quota and was charged; a stuck storage fails it after 10s, as kube does. */
  evaluate(attrs: AdmissionAttributes): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = this.#clock.setTimeout(
        () => reject(newInternalError(new Error('resource quota evaluates timeout'))),
        EVALUATE_TIMEOUT_MS,
      );
      const waiter: Waiter = {
        attrs,
        result: PENDING,
        settle: (result) => {
          this.#clock.clearTimeout(timer);
          if (result === null) resolve();
          else reject(result === PENDING ? newInternalError(new Error('DEFAULT DENY')) : result);
        },
      };
      const ns = attrs.namespace;
      this.#work.set(ns, [...(this.#work.get(ns) ?? []), waiter]);
      if (!this.#inProgress.has(ns)) {
        // Started on the event loop's next turn: the creates that reach admission meanwhile join the batch (one status
        // write for all), as requests pile up in kube's queue while its worker is busy.
        this.#inProgress.add(ns);
        setImmediate(() => void this.#drain(ns));
      }
    });
  }

  async #drain(ns: string): Promise<void> {
    try {
      for (let batch = this.#work.get(ns); batch?.length; batch = this.#work.get(ns)) {
        this.#work.delete(ns);
        await this.#checkAttributes(ns, batch);
      }
    } finally {
      this.#inProgress.delete(ns);
    }
  }

  /** Decides every waiter of the batch; whatever fails, each is told. */
  async #checkAttributes(ns: string, waiters: Waiter[]): Promise<void> {
    try {
      const quotas = await this.#list(ns);
      // Without quotas there is nothing to charge, unless some resources need a covering quota.
      if (quotas.length === 0 && this.#limited.length === 0) for (const w of waiters) w.result = null;
      else await this.#checkQuotas(ns, quotas, waiters, RETRIES);
    } catch (err) {
      for (const w of waiters) if (w.result === PENDING) w.result = err;
    } finally {
      for (const w of waiters) w.settle(w.result);
    }
  }

  /** kube's checkQuotas: charge the batch to the running copies, write the changed quotas, retry those that failed. */
  async #checkQuotas(ns: string, quotas: ResourceQuota[], waiters: Waiter[], remaining: number, limited = this.#limited): Promise<void> {
    let running = quotas;
    const dirty = new Set<number>();
    for (const w of waiters) {
      let charged: ReturnType<typeof checkRequest>;
      try {
        charged = checkRequest(running, w.attrs, limited);
      } catch (err) {
        w.result = err;
        continue;
      }
      // Checked, not charged.
      if (w.attrs.dryRun) {
        w.result = null;
        continue;
      }
      // No quota counts it: admitted now; otherwise it waits for the writes.
      if (charged.changed.length === 0) w.result = null;
      for (const i of charged.changed) dirty.add(i);
      running = charged.quotas;
    }
    if (dirty.size === 0) return;

    const failed = new Set<string>();
    let lastErr: unknown;
    for (const i of dirty) {
      const rq = running[i] as ResourceQuota;
      try {
        // metadata.resourceVersion is the one read: a quota written since is a 409, never a lost update.
        await this.#store().update({ namespace: ns }, rq.metadata.name ?? '', rq, {
          subresource: 'status',
          fieldManager: 'kube-apiserver',
        });
      } catch (err) {
        failed.add(rq.metadata.name ?? '');
        lastErr = err;
      }
    }
    if (failed.size === 0 || remaining <= 0) {
      for (const w of waiters) if (w.result === PENDING) w.result = failed.size === 0 ? null : lastErr;
      return;
    }
    // Only the quotas whose write failed are checked again (a deleted one no more): the others hold the charges. And only
    // the requests still waiting: kube checks the decided ones again too, which can admit one that a written quota refused.
    const fresh = (await this.#list(ns)).filter((q) => failed.has(q.metadata.name ?? ''));
    await this.#checkQuotas(
      ns,
      fresh,
      waiters.filter((w) => w.result === PENDING),
      remaining - 1,
      // Their coverage was settled on all the quotas; these are a few.
      [],
    );
  }

  async #list(ns: string): Promise<ResourceQuota[]> {
    return (await this.#store().list({ namespace: ns })).items as ResourceQuota[];
  }
}

import { type Clock, type KubeObject, newInternalError, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import type { AdmissionAttributes } from '../../attributes.ts';
import { checkRequest } from './quota-check.ts';
import type { ResourceQuota } from './resource-quota.ts';

/** What quota admission and the quota controller need of the ResourceQuota store (a registry Store). */
export type QuotaStore = Pick<Store<KubeObject>, 'list' | 'get' | 'update' | 'watch'>;

/** kube's quotaEvaluator retries the status writes that lost a race this many times. */
const RETRIES = 3;
/** How long a request waits for its turn and its check before it fails (kube's evaluator gives up after 10s). */
const EVALUATE_TIMEOUT_MS = 10_000;

/**
 * Runs one namespace's admissions one at a time (kube's evaluator queues them by namespace for one worker): so the
 * writes of one process never race each other, and a quota's resourceVersion, sent with each status write, catches
 * the writes of others (another server, the quota controller).
 */
class NamespaceQueue {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(namespace: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(namespace) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = before.then(() => mine);
    this.#tails.set(namespace, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(namespace) === tail) this.#tails.delete(namespace);
    }
  }
}

/**
 * kube's quotaEvaluator for object counts: checks a create against the namespace's quotas as stored now and charges
 * it to their status.used, with each quota's resourceVersion as precondition; the quotas whose write conflicted are
 * read again and checked again, up to three times. A dry run is checked and not charged.
 */
export class QuotaEvaluator {
  readonly #store: () => QuotaStore;
  readonly #clock: Clock;
  readonly #queue = new NamespaceQueue();

  constructor(store: () => QuotaStore, clock: Clock = realClock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Resolves when the create fits every quota and was charged; a stuck storage fails it after 10s, as kube does. */
  evaluate(attrs: AdmissionAttributes): Promise<void> {
    const work = this.#queue.run(attrs.namespace, () => this.#check(attrs));
    return new Promise((resolve, reject) => {
      const timer = this.#clock.setTimeout(
        () => reject(newInternalError(new Error('resource quota evaluates timeout'))),
        EVALUATE_TIMEOUT_MS,
      );
      work.then(
        () => {
          this.#clock.clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          this.#clock.clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  async #check(attrs: AdmissionAttributes): Promise<void> {
    const store = this.#store();
    const ns = attrs.namespace;
    let quotas = (await store.list({ namespace: ns })).items as ResourceQuota[];
    for (let remaining = RETRIES; ; remaining--) {
      if (quotas.length === 0) return;
      const { quotas: charged, changed } = checkRequest(quotas, attrs);
      if (changed.length === 0 || attrs.dryRun) return;
      const failed = new Set<string>();
      let lastErr: unknown;
      for (const i of changed) {
        const rq = charged[i] as ResourceQuota;
        try {
          // metadata.resourceVersion is the one read: a quota written since is a 409, never a lost update.
          await store.update({ namespace: ns }, rq.metadata.name ?? '', rq, { subresource: 'status', fieldManager: 'kube-apiserver' });
        } catch (err) {
          failed.add(rq.metadata.name ?? '');
          lastErr = err;
        }
      }
      if (failed.size === 0) return;
      if (remaining <= 0) throw lastErr;
      // Only the quotas whose write failed are checked again (a deleted one no more): the others have been charged.
      const fresh = (await store.list({ namespace: ns })).items as ResourceQuota[];
      quotas = fresh.filter((q) => failed.has(q.metadata.name ?? ''));
    }
  }
}

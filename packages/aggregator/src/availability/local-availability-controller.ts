import { type Clock, copyJson, jsonEqual, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import { localAvailableCondition } from '../apiservice/apiservice-resource.ts';
import type { APIService, APIServiceCondition } from '../apiservice/types.ts';
import { runAPIServiceInformer } from '../controller/apiservice-informer.ts';
import { WorkQueue } from '../controller/work-queue.ts';

export interface LocalAvailabilityControllerOptions {
  /** The APIService kind's Store. */
  apiServices: Store<APIService>;
  clock?: Clock;
  /** Told of failed status writes (retried with a backoff) and failed lists or watches. Default: ignored. */
  onError?: (err: unknown) => void;
}

/**
 * SetAPIServiceCondition: replaces the condition of the same type, keeping its lastTransitionTime when its status
 * did not change; appends it otherwise.
 */
export function setAPIServiceCondition(apiService: APIService, condition: APIServiceCondition): void {
  apiService.status ??= {};
  apiService.status.conditions ??= [];
  const conditions = apiService.status.conditions;
  const i = conditions.findIndex((c) => c.type === condition.type);
  if (i < 0) {
    conditions.push(condition);
    return;
  }
  const existing = conditions[i] as APIServiceCondition;
  conditions[i] =
    existing.status === condition.status && existing.lastTransitionTime !== undefined
      ? { ...condition, lastTransitionTime: existing.lastTransitionTime }
      : condition;
}

/**
 * The local part of kube-aggregator's AvailableConditionController: an APIService without `spec.service` is served by
 * this chain and always available, so its Available condition is kept True with reason Local ("Local APIServices are
 * always available"), whoever wrote it otherwise (an APIService turned from remote to local, a status written by
 * hand). The status is written only when it changes. Remote APIServices are left alone: checking them is the part of
 * kube's controller not built yet.
 */
export class LocalAvailabilityController {
  readonly #store: Store<APIService>;
  readonly #clock: Clock;
  readonly #onError: (err: unknown) => void;
  readonly #current = new Map<string, APIService>();
  readonly #queue: WorkQueue;
  #abort: AbortController | undefined;

  constructor(options: LocalAvailabilityControllerOptions) {
    this.#store = options.apiServices;
    this.#clock = options.clock ?? realClock;
    this.#onError = options.onError ?? (() => {});
    this.#queue = new WorkQueue((name) => this.#sync(name), this.#clock, this.#onError);
  }

  /** Starts the informer and the worker; resolves once the first list is in. */
  async start(): Promise<void> {
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    await runAPIServiceInformer(this.#store, this.#current, {
      signal: abort.signal,
      clock: this.#clock,
      onError: this.#onError,
      // A deleted APIService has no status left to keep.
      onChange: (name, present) => present && this.#queue.add(name),
    });
    this.#queue.start();
  }

  stop(): void {
    this.#queue.stop();
    this.#abort?.abort();
  }

  async #sync(name: string): Promise<void> {
    const current = this.#current.get(name);
    if (!current || current.spec?.service) return;
    const updated = copyJson(current);
    setAPIServiceCondition(updated, localAvailableCondition(this.#clock.now()));
    if (jsonEqual(updated.status ?? {}, current.status ?? {})) return;
    try {
      await this.#store.update({}, name, updated, { subresource: 'status' });
    } catch (err) {
      // A newer version was written (its event brings the name back) or the object is gone.
      const code = (err as { code?: number }).code;
      if (code !== 409 && code !== 404) throw err;
    }
  }
}

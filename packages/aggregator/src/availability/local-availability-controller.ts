import { type Clock, copyJson, jsonEqual, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import { localAvailableCondition } from '../apiservice/apiservice-resource.ts';
import type { APIService, APIServiceCondition } from '../apiservice/types.ts';
import { APIServiceControllerLoop } from '../controller/apiservice-controller-loop.ts';

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
  readonly #loop: APIServiceControllerLoop;

  constructor(options: LocalAvailabilityControllerOptions) {
    this.#store = options.apiServices;
    this.#clock = options.clock ?? realClock;
    // A deleted APIService has no status left to keep: the loop queues only present ones.
    this.#loop = new APIServiceControllerLoop({
      sync: (name) => this.#sync(name),
      clock: this.#clock,
      onError: options.onError ?? (() => {}),
    });
  }

  /** Starts the informer and the worker; resolves once the first list is in. */
  start(): Promise<void> {
    return this.#loop.start(this.#store);
  }

  stop(): void {
    this.#loop.stop();
  }

  async #sync(name: string): Promise<void> {
    const current = this.#loop.current.get(name);
    if (!current || current.spec?.service) return;
    await writeAPIServiceCondition(this.#store, current, localAvailableCondition(this.#clock.now()));
  }
}

/**
 * Writes `condition` into the status of `current` (setAPIServiceCondition) when that changes it. A conflict or a
 * missing object is not an error: a newer version was written (its event brings the name back) or it is gone.
 */
export async function writeAPIServiceCondition(
  store: Store<APIService>,
  current: APIService,
  condition: APIServiceCondition,
): Promise<void> {
  const updated = copyJson(current);
  setAPIServiceCondition(updated, condition);
  if (jsonEqual(updated.status ?? {}, current.status ?? {})) return;
  try {
    await store.update({}, current.metadata.name ?? '', updated, { subresource: 'status' });
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code !== 409 && code !== 404) throw err;
  }
}

import type { Agent } from 'node:https';
import { type Clock, realClock } from '@kapi/apimachinery';
import { type ListWatchSource, listAndWatch, type Store } from '@kapi/registry';
import { type APIService, AVAILABLE_CONDITION } from '../apiservice/types.ts';
import { APIServiceControllerLoop } from '../controller/apiservice-controller-loop.ts';
import { remoteGet } from '../remote/remote-get.ts';
import { RemoteServiceError } from '../remote/remote-transport.ts';
import { writeAPIServiceCondition } from './local-availability-controller.ts';

/** What the controller needs of the aggregator's RemoteTransport: where a Service is, and kube's check transport. */
export interface RemoteAvailabilityTransport {
  /** `https://host:port` of the APIService's Service; throws a RemoteServiceError naming kube's reason. */
  resolve(apiService: APIService): URL;
  /** Presents the proxy client certificate and does not verify the serving one (kube's check transport). */
  discoveryAgent(): Agent;
}

export interface RemoteAvailabilityControllerOptions {
  /** The APIService kind's Store. */
  apiServices: Store<APIService>;
  transport: RemoteAvailabilityTransport;
  clock?: Clock;
  /** How often every remote APIService is checked again (kube's informer resync); default 30 s. */
  resyncMs?: number;
  /** Told of failed checks (retried with a backoff of at most 30 s), status writes, lists and watches. */
  onError?: (err: unknown) => void;
  /**
   * Where the chain's Services and Endpoints are, when it serves them: a change of one has the APIServices naming it
   * checked again at once, as kube's controller does (else the 30 s recheck notices).
   */
  services?: ListWatchSource | undefined;
  endpoints?: ListWatchSource | undefined;
}

/** kube's resync period of the APIService informer of this controller. */
const RESYNC_MS = 30_000;
/** kube's rate limiter for this queue: 5 ms doubling to at most 30 s ("a fairly tight requeue time"). */
const MAX_BACKOFF_MS = 30_000;
/** kube's check: five concurrent GETs (each with a 5 s client timeout); one success is enough. */
const ATTEMPTS = 5;
const CHECK_HEADERS = { 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' };

/** The outcome of one check: the Available condition without its time. */
interface Verdict {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** The check failed at the discovery GET: kube requeues with its backoff rather than waiting for the resync. */
  retry?: boolean;
}

/** A failed discovery GET (kube requeues the APIService with its backoff). */
export class DiscoveryCheckError extends Error {}

/**
 * The remote half of kube-aggregator's AvailableConditionController (remote_available_controller.go): for every
 * APIService with `spec.service`, the Service is resolved (kube's reasons ServiceNotFound, ServicePortError,
 * EndpointsNotFound, MissingEndpoints, ServiceAccessError) and `/apis/<group>/<version>` (`/api/<version>` for `v1.`) is
 * fetched from it as `system:kube-aggregator` in `system:masters`, presenting the proxy client certificate; a 2xx from
 * any of five attempts is `Passed` ("all checks passed"), otherwise `FailedDiscoveryCheck` with Go's error text. The
 * condition's lastTransitionTime moves only when its status does, and the status is written only when it changes.
 * Checked when the APIService changes, every 30 s, and after a failed discovery check with a backoff (5 ms doubling,
 * at most 30 s) as kube's queue.
 */
export class RemoteAvailabilityController {
  readonly #store: Store<APIService>;
  readonly #transport: RemoteAvailabilityTransport;
  readonly #clock: Clock;
  readonly #onError: (err: unknown) => void;
  readonly #serviceSources: ListWatchSource[];
  readonly #loop: APIServiceControllerLoop;
  #started = false;

  constructor(options: RemoteAvailabilityControllerOptions) {
    this.#store = options.apiServices;
    this.#transport = options.transport;
    this.#clock = options.clock ?? realClock;
    this.#onError = options.onError ?? (() => {});
    this.#serviceSources = [options.services, options.endpoints].filter((s): s is ListWatchSource => s !== undefined);
    this.#loop = new APIServiceControllerLoop({
      sync: (name) => this.#sync(name),
      clock: this.#clock,
      onError: this.#onError,
      resyncRemoteMs: options.resyncMs ?? RESYNC_MS,
      maxBackoffMs: MAX_BACKOFF_MS,
      // kube runs this controller with 5 workers: a remote slow to answer does not hold the others' checks.
      workers: 5,
    });
  }

  /** Starts the informer, the worker and the resync; resolves once the first list is in. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#loop.start(this.#store);
    const signal = this.#loop.signal;
    if (signal)
      for (const source of this.#serviceSources)
        void listAndWatch(source, {
          signal,
          clock: this.#clock,
          retryAfterMs: 1000,
          onError: this.#onError,
          onEvent: (_type, obj) => this.#serviceChanged(obj.metadata.namespace ?? '', obj.metadata.name ?? ''),
        });
  }

  /** kube's addService/addEndpoints handlers: the APIServices naming that Service are checked again. */
  #serviceChanged(namespace: string, name: string): void {
    for (const [apiService, s] of this.#loop.current) {
      const service = s.spec?.service;
      if (service && (service.namespace ?? '') === namespace && (service.name ?? '') === name) this.#loop.add(apiService);
    }
  }

  stop(): void {
    this.#loop.stop();
  }

  async #sync(name: string): Promise<void> {
    const current = this.#loop.current.get(name);
    // Local APIServices are the local controller's.
    if (!current?.spec?.service) return;
    const verdict = await this.check(current);
    await writeAPIServiceCondition(this.#store, current, {
      type: AVAILABLE_CONDITION,
      status: verdict.status,
      lastTransitionTime: new Date(this.#clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      reason: verdict.reason,
      message: verdict.message,
    });
    // Requeued with the backoff, as kube returns the discovery error from sync.
    if (verdict.retry) throw new DiscoveryCheckError(`${name}: ${verdict.message}`);
  }

  /** One check of a remote APIService, as kube's sync makes it. */
  async check(apiService: APIService): Promise<Verdict> {
    const spec = apiService.spec ?? {};
    const path = apiService.metadata.name === 'v1.' ? `/api/${spec.version ?? ''}` : `/apis/${spec.group ?? ''}/${spec.version ?? ''}`;
    const attempt = async (): Promise<string | undefined> => {
      let base: URL;
      try {
        base = this.#transport.resolve(apiService);
      } catch (err) {
        if (err instanceof RemoteServiceError) throw err;
        // kube passes a resolver error on as it is.
        return err instanceof Error ? err.message : String(err);
      }
      const url = `${base.origin}${path}`;
      const failure = await check(url, this.#transport.discoveryAgent());
      return failure === undefined ? undefined : `failing or missing response from ${url}: ${failure}`;
    };
    let results: (string | undefined)[];
    try {
      results = await Promise.all(Array.from({ length: ATTEMPTS }, attempt));
    } catch (err) {
      const e = err as RemoteServiceError;
      return { status: e.reason === 'ServiceAccessError' ? 'Unknown' : 'False', reason: e.reason, message: e.message };
    }
    if (results.some((r) => r === undefined)) return { status: 'True', reason: 'Passed', message: 'all checks passed' };
    return { status: 'False', reason: 'FailedDiscoveryCheck', message: results[results.length - 1] as string, retry: true };
  }
}

/**
 * GET `url` as kube's check does (no redirects followed, 5 s for the whole exchange, the aggregator's identity in the
 * front-proxy headers); undefined for a 2xx, else Go's text of what went wrong.
 */
async function check(url: string, agent: Agent): Promise<string | undefined> {
  try {
    const res = await remoteGet(new URL(url), agent, CHECK_HEADERS, { headOnly: true });
    return res.status >= 200 && res.status < 300 ? undefined : `bad status from ${url}: ${res.status}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

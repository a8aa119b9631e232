import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AuthenticationMetrics } from './authentication-metrics.ts';
import { AuthorizationMetrics } from './authorization-metrics.ts';

/** Labels of apiserver_request_duration_seconds (apiserver_request_total adds `code`). */
export interface RequestMetricLabels {
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** Labels of apiserver_longrunning_requests. */
export type LongRunningMetricLabels = Omit<RequestMetricLabels, 'dry_run'>;

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Counts of stored objects per resource (e.g. "pods", "deployments.apps"), read at scrape time. */
export type StorageObjectCounts = () => Promise<ReadonlyMap<string, number>> | ReadonlyMap<string, number>;

/** Current in-flight counts, e.g. `withMaxInFlightLimit(...).inFlight`. */
export type InflightCounts = () => { readOnly: number; mutating: number };

export interface APIServerMetricsOptions {
  /** Where the metrics are registered; default a fresh Registry (never prom-client's global one). */
  registry?: Registry;
  /** Source of apiserver_storage_objects, called on every scrape. */
  storageObjects?: StorageObjectCounts;
  /** Source of apiserver_current_inflight_requests, called on every scrape. */
  inflight?: InflightCounts;
}

/** kube's buckets for apiserver_request_duration_seconds (tuned for the API call latency SLOs). */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const LONG_RUNNING_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/**
 * kube-apiserver's request metrics (names, help texts, labels and buckets as
 * k8s.io/apiserver/pkg/endpoints/metrics/metrics.go defines them) on a per-server prom-client Registry.
 * `withMetrics` feeds the request series; watch handlers call `watchStarted`/`watchEnded`; storage object
 * counts and in-flight counts are pulled from callbacks at scrape time.
 *
 * @example
 * const metrics = new APIServerMetrics({ inflight: limit.inFlight, storageObjects: async () => counts() });
 * const handler = compose([withRequestInfo(), limit, withMetrics(metrics), metricsHandler(metrics)], routes);
 */
export class APIServerMetrics {
  readonly registry: Registry;
  readonly requestTotal: Counter<(typeof REQUEST_LABELS)[number] | 'code'>;
  readonly requestDuration: Histogram<(typeof REQUEST_LABELS)[number]>;
  readonly longRunningRequests: Gauge<(typeof LONG_RUNNING_LABELS)[number]>;
  readonly currentInflightRequests: Gauge<'request_kind'>;
  readonly registeredWatchers: Gauge<'group' | 'version' | 'kind'>;
  readonly storageObjects: Gauge<'resource'>;
  /** authentication_attempts, authentication_duration_seconds, authenticated_user_requests (fed by withAuthentication). */
  readonly authentication: AuthenticationMetrics;
  /** authorization_attempts_total, authorization_duration_seconds, apiserver_authorization_decisions_total (fed by withAuthorization). */
  readonly authorization: AuthorizationMetrics;
  #storageSource: StorageObjectCounts | undefined;
  #inflightSource: InflightCounts | undefined;
  /** Resources seen in an earlier scrape, reported as -1 when the source fails (as kube does). */
  readonly #knownResources = new Set<string>();

  constructor(options: APIServerMetricsOptions = {}) {
    const registry = options.registry ?? new Registry();
    this.registry = registry;
    this.#storageSource = options.storageObjects;
    this.#inflightSource = options.inflight;
    const registers = [registry];

    this.requestTotal = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: [...REQUEST_LABELS],
      buckets: [...REQUEST_DURATION_BUCKETS],
      registers,
    });
    this.longRunningRequests = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: [...LONG_RUNNING_LABELS],
      registers,
    });
    this.currentInflightRequests = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
      collect: () => {
        const counts = this.#inflightSource?.();
        if (counts) this.setInflight(counts.readOnly, counts.mutating);
      },
    });
    this.setInflight(0, 0);
    this.registeredWatchers = new Gauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources',
      labelNames: ['group', 'version', 'kind'],
      registers,
    });
    this.storageObjects = new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      registers,
      collect: () => this.#collectStorageObjects(),
    });
    this.authentication = new AuthenticationMetrics(registry);
    this.authorization = new AuthorizationMetrics(registry);
  }

  /** Replaces the scrape-time source of apiserver_storage_objects. */
  setStorageObjectsSource(source: StorageObjectCounts | undefined): void {
    this.#storageSource = source;
  }

  /** Replaces the scrape-time source of apiserver_current_inflight_requests. */
  setInflightSource(source: InflightCounts | undefined): void {
    this.#inflightSource = source;
  }

  /** Sets apiserver_current_inflight_requests directly (kube's UpdateInflightRequestMetrics). */
  setInflight(readOnly: number, mutating: number): void {
    this.currentInflightRequests.set({ request_kind: 'readOnly' }, readOnly);
    this.currentInflightRequests.set({ request_kind: 'mutating' }, mutating);
  }

  /** Records one finished request in apiserver_request_total and apiserver_request_duration_seconds. */
  observeRequest(labels: RequestMetricLabels, code: number, seconds: number): void {
    this.requestTotal.inc({ ...labels, code: String(code) });
    this.requestDuration.observe(labels, seconds);
  }

  /** Counts a long-running request until the returned function is called (kube's RecordLongRunning). */
  longRunningStarted(labels: LongRunningMetricLabels): () => void {
    this.longRunningRequests.inc(labels);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.longRunningRequests.dec(labels);
    };
  }

  /** A watcher for objects of `gvk` was registered. */
  watchStarted(gvk: GroupVersionKind): void {
    this.registeredWatchers.inc({ group: gvk.group, version: gvk.version, kind: gvk.kind });
  }

  /** A watcher for objects of `gvk` went away. */
  watchEnded(gvk: GroupVersionKind): void {
    this.registeredWatchers.dec({ group: gvk.group, version: gvk.version, kind: gvk.kind });
  }

  /** The Prometheus text exposition of every metric in the registry. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type of `scrape()`'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }

  async #collectStorageObjects(): Promise<void> {
    const source = this.#storageSource;
    if (!source) return;
    let counts: ReadonlyMap<string, number>;
    try {
      counts = await source();
    } catch {
      for (const resource of this.#knownResources) this.storageObjects.set({ resource }, -1);
      return;
    }
    this.storageObjects.reset();
    this.#knownResources.clear();
    for (const [resource, n] of counts) {
      this.#knownResources.add(resource);
      this.storageObjects.set({ resource }, n);
    }
  }
}

import type { ChangeType } from './cache-event.ts';

/**
 * Callbacks a Cacher calls as things happen, for whatever metrics system the caller uses (no dependency here).
 * Every callback is optional and must be cheap: most run on the event path.
 */
export interface CacherMetrics {
  /** A change was applied to the cache and queued for `watchers` watchers. */
  eventDispatched?(info: { type: ChangeType; resourceVersion: number; watchers: number }): void;
  /** The number of open watchers changed. */
  watchersChanged?(count: number): void;
  /** A watcher was ended: 'slow' when its buffer stayed full past the time budget, 'relist' when the cache lost history. */
  watcherTerminated?(reason: 'slow' | 'relist'): void;
  /** The backend's revision was observed (a consistent read, or `measureLag()`); lag = backend − cache revision. */
  lagObserved?(info: { cacheRevision: number; backendRevision: number; lag: number }): void;
  /** The cache (re)listed the backend at `resourceVersion`. */
  relisted?(info: { resourceVersion: number; objects: number }): void;
  /** A consistent read could not be served from the cache in time and was read from the backend. */
  consistentReadFallback?(): void;
}

/** A Cacher's counters and state at one moment (`cacher.stats()`). */
export interface CacherStats {
  ready: boolean;
  /** The revision the cache reflects. */
  resourceVersion: number;
  objects: number;
  watchers: number;
  /** Changes applied and dispatched since start. */
  eventsDispatched: number;
  /** Watch events queued for watchers (one per watcher per event) since start. */
  eventsDelivered: number;
  /** Watchers ended for being too slow. */
  slowWatchersTerminated: number;
  /** Full lists of the backend (1 after the first sync). */
  lists: number;
  consistentReadFallbacks: number;
  /** Consistent reads (and watches from "") sent to the backend because it cannot confirm the cache's freshness promptly. */
  consistentReadsDelegated: number;
  historySize: number;
  historyCapacity: number;
  /** backend − cache revision when last observed; undefined until observed. */
  lag: number | undefined;
}

/** The Cacher's counters, forwarding to the caller's callbacks. */
export class MetricsRecorder {
  readonly callbacks: CacherMetrics;
  eventsDispatched = 0;
  eventsDelivered = 0;
  slowWatchersTerminated = 0;
  consistentReadFallbacks = 0;
  consistentReadsDelegated = 0;
  lag: number | undefined;

  constructor(callbacks: CacherMetrics = {}) {
    this.callbacks = callbacks;
  }

  dispatched(type: ChangeType, resourceVersion: number, watchers: number): void {
    this.eventsDispatched++;
    this.eventsDelivered += watchers;
    this.callbacks.eventDispatched?.({ type, resourceVersion, watchers });
  }

  watchers(count: number): void {
    this.callbacks.watchersChanged?.(count);
  }

  terminated(reason: 'slow' | 'relist'): void {
    if (reason === 'slow') this.slowWatchersTerminated++;
    this.callbacks.watcherTerminated?.(reason);
  }

  observedBackend(cacheRevision: number, backendRevision: number): void {
    this.lag = Math.max(0, backendRevision - cacheRevision);
    this.callbacks.lagObserved?.({ cacheRevision, backendRevision, lag: this.lag });
  }

  relisted(resourceVersion: number, objects: number): void {
    this.callbacks.relisted?.({ resourceVersion, objects });
  }

  delegated(): void {
    this.consistentReadsDelegated++;
  }

  fallback(): void {
    this.consistentReadFallbacks++;
    this.callbacks.consistentReadFallback?.();
  }
}

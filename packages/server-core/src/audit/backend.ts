import type { AuditEvent } from './types.ts';

/**
 * kube's audit Backend (a Sink with a lifecycle). `processEvents` is called up to three times per request
 * (RequestReceived, ResponseStarted for long-running requests, ResponseComplete or Panic), each time with
 * snapshots the backend may keep. Throwing on RequestReceived fails the request with 500 (kube's "failed to
 * store audit event"); later failures are reported to the filter's `onError` only.
 */
export interface AuditBackend {
  processEvents(events: readonly AuditEvent[]): void;
  /** Flushes and releases what the backend holds; no events arrive after it is called. */
  shutdown(): Promise<void>;
}

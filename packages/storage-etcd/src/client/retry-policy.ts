import { status } from '@grpc/grpc-js';

/**
 * How a call may be sent again after it failed, as etcd's clientv3 retry interceptor decides (retry_interceptor.go,
 * isSafeRetry):
 * - `repeatable`: sending it twice does no harm (a Range, a Compact, a Status, a LeaseGrant with a chosen ID): retried
 *   on another member whenever etcd could not answer;
 * - `mutation`: a Txn: retried only when etcd surely did not apply it (it was refused before it was proposed);
 *   otherwise its outcome is unknown and it fails with WriteOutcomeUnknownError rather than risk a double write.
 */
export type RetryKind = 'repeatable' | 'mutation';

/** Refusals etcd gives before it proposes anything: a write refused with one of these was not applied. */
const NOT_APPLIED = [
  // v3rpc's interceptor, for a call that requires a leader (the `hasleader` metadata) on a member without one.
  'etcdserver: no leader',
  'etcdserver: too many requests',
  'etcdserver: not capable',
];

function details(err: unknown): { code: number | undefined; text: string } {
  const e = err as { code?: unknown; details?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'number' ? e.code : undefined;
  const text = typeof e?.details === 'string' && e.details ? e.details : typeof e?.message === 'string' ? e.message : '';
  return { code, text };
}

/**
 * The member's channel has no connection (it could not connect), so the call was never sent: safe to send to another
 * member whatever the call (EtcdClient does), but not again to this one now, which would find the same (a down etcd
 * fails calls at once).
 */
export function noMemberReachable(err: unknown): boolean {
  const { code, text } = details(err);
  return code === status.UNAVAILABLE && text.startsWith('No connection established');
}

/** Whether a call of `kind` that failed with `err` on a member it reached may be sent again (to the member calls go to then). */
export function mayRetry(err: unknown, kind: RetryKind): boolean {
  const { code, text } = details(err);
  if (noMemberReachable(err)) return false;
  if (NOT_APPLIED.some((t) => text.includes(t))) return true;
  // UNAVAILABLE: the member went away mid-call, or could not serve it now (leader changed, request timed out).
  return kind === 'repeatable' && code === status.UNAVAILABLE;
}

/** Whether a write that failed with `err` may have been applied all the same (etcd did not say either way). */
export function outcomeUnknown(err: unknown): boolean {
  const { code, text } = details(err);
  if (noMemberReachable(err) || NOT_APPLIED.some((t) => text.includes(t))) return false;
  return code === status.UNAVAILABLE || code === status.DEADLINE_EXCEEDED || code === status.CANCELLED;
}

/**
 * A write whose outcome is unknown: the member died or timed out after it may have proposed it (kube-apiserver passes
 * etcd's "etcdserver: request timed out" on the same way). It keeps the gRPC code, so it maps to the storage's
 * retryable Unreachable. A client may retry the request: a create that did happen then answers AlreadyExists, an
 * update with a resourceVersion that did happen a Conflict (the transactions compare create_revision / mod_revision).
 */
export class WriteOutcomeUnknownError extends Error {
  readonly code: number;
  readonly details: string;

  constructor(cause: unknown) {
    const { code, text } = details(cause);
    const message = `etcd did not confirm the write (${text || 'no answer'}); it may or may not have been applied`;
    super(message, { cause });
    this.name = 'WriteOutcomeUnknownError';
    this.code = code ?? status.UNAVAILABLE;
    this.details = message;
  }
}

const FIRST_BACKOFF_MS = 25;
const MAX_BACKOFF_MS = 500;

/** The wait before retry number `attempt` (0-based): doubling from 25 ms, at most 500 ms. */
export function retryBackoffMs(attempt: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS);
}

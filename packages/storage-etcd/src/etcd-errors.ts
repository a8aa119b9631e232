import { status } from '@grpc/grpc-js';
import { storageErrors } from '@kapi/storage';

/**
 * What an error from an etcd call means for storage:
 * - `compacted`: "etcdserver: mvcc: required revision has been compacted" (a read or watch below the compaction point);
 * - `futureRevision`: "etcdserver: mvcc: required revision is a future revision";
 * - `requestTooLarge`: etcd's "etcdserver: request is too large" (--max-request-bytes), or gRPC refusing a message over
 *   etcd's receive limit (that limit plus 512 KiB);
 * - `unavailable`: no answer: the server is down or unreachable, the deadline passed, the call was cancelled because
 *   the client closed, or etcd could not serve it now (no leader, leader changed, request timed out, too many requests);
 *   also a write whose outcome is unknown (WriteOutcomeUnknownError keeps the gRPC code);
 * - `other`: anything else (a bug, or an etcd refusal this package does not expect).
 */
export type EtcdErrorKind = 'compacted' | 'futureRevision' | 'requestTooLarge' | 'unavailable' | 'other';

const UNAVAILABLE_CODES: ReadonlySet<number> = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.CANCELLED]);

export function classifyEtcdError(err: unknown): EtcdErrorKind {
  const e = err as { code?: unknown; details?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'number' ? e.code : undefined;
  const text = typeof e?.details === 'string' && e.details ? e.details : typeof e?.message === 'string' ? e.message : '';
  if (text.includes('required revision has been compacted')) return 'compacted';
  if (text.includes('required revision is a future revision')) return 'futureRevision';
  if (text.includes('request is too large')) return 'requestTooLarge';
  if (code === status.RESOURCE_EXHAUSTED && text.includes('larger than max')) return 'requestTooLarge';
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return 'unavailable';
  if (text.includes('too many requests')) return 'unavailable';
  return 'other';
}

/**
 * The StorageError for an error of a call on `key` whose meaning does not depend on the call: Unreachable, or
 * RequestTooLarge for a write of `bytes` (0 when unknown) over `limit`. Anything else is returned as it is (it reaches
 * a client as a 500 InternalError).
 */
export function toStorageError(err: unknown, key: string, write?: { bytes: number; limit: number }): unknown {
  switch (classifyEtcdError(err)) {
    case 'unavailable':
      return storageErrors.unreachable(key, err);
    case 'requestTooLarge':
      return storageErrors.requestTooLarge(key, write?.bytes ?? 0, write?.limit ?? 0);
    default:
      return err;
  }
}

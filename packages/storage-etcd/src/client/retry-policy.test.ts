import { status } from '@grpc/grpc-js';
import { isStorageError } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { toStorageError } from '../etcd-errors.ts';
import { mayRetry, outcomeUnknown, retryBackoffMs, WriteOutcomeUnknownError } from './retry-policy.ts';

/** A grpc-js ServiceError as the client reports it. */
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details });

const noConnection = grpcError(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379');
const dropped = grpcError(status.UNAVAILABLE, 'read ECONNRESET');
const timedOut = grpcError(status.UNAVAILABLE, 'etcdserver: request timed out');
const leaderChanged = grpcError(status.UNAVAILABLE, 'etcdserver: leader changed');
const noLeader = grpcError(status.UNAVAILABLE, 'etcdserver: no leader');
const deadline = grpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded');
const compacted = grpcError(status.OUT_OF_RANGE, 'etcdserver: mvcc: required revision has been compacted');

describe('retry policy (clientv3 isSafeRetry)', () => {
  it('a read is retried whenever its member could not answer, but not when no member can be reached', () => {
    for (const err of [dropped, timedOut, leaderChanged, noLeader]) expect(mayRetry(err, 'repeatable')).toBe(true);
    for (const err of [noConnection, deadline, compacted]) expect(mayRetry(err, 'repeatable')).toBe(false);
  });

  it('a write is retried only when etcd surely did not apply it', () => {
    expect(mayRetry(noLeader, 'mutation')).toBe(true);
    expect(mayRetry(grpcError(status.RESOURCE_EXHAUSTED, 'etcdserver: too many requests'), 'mutation')).toBe(true);
    for (const err of [dropped, timedOut, leaderChanged, deadline, noConnection, compacted]) expect(mayRetry(err, 'mutation')).toBe(false);
  });

  it('a write that failed mid-way has an unknown outcome, one never sent or refused has not', () => {
    for (const err of [dropped, timedOut, leaderChanged, deadline]) expect(outcomeUnknown(err)).toBe(true);
    for (const err of [noConnection, noLeader, compacted]) expect(outcomeUnknown(err)).toBe(false);
  });

  it('an unknown outcome is the retryable Unreachable, saying the write may have happened', () => {
    const err = toStorageError(new WriteOutcomeUnknownError(timedOut), '/a');
    expect(isStorageError(err, 'Unreachable')).toBe(true);
    expect(String(err)).toMatch(/etcd did not confirm the write \(etcdserver: request timed out\); it may or may not have been applied/);
  });

  it('backs off from 25 ms, doubling, to at most 500 ms', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(retryBackoffMs)).toEqual([25, 50, 100, 200, 400, 500, 500]);
  });
});

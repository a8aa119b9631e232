import { status } from '@grpc/grpc-js';
import { isStorageError } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { classifyEtcdError, toStorageError } from './etcd-errors.ts';

/** A grpc-js ServiceError as the client reports it. */
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details });

describe('classifyEtcdError', () => {
  it.each([
    [status.OUT_OF_RANGE, 'etcdserver: mvcc: required revision has been compacted', 'compacted'],
    [status.OUT_OF_RANGE, 'etcdserver: mvcc: required revision is a future revision', 'futureRevision'],
    [status.INVALID_ARGUMENT, 'etcdserver: request is too large', 'requestTooLarge'],
    [status.RESOURCE_EXHAUSTED, 'grpc: received message larger than max (3000021 vs. 2097152)', 'requestTooLarge'],
    [status.UNAVAILABLE, 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:2379', 'unavailable'],
    [status.UNAVAILABLE, 'etcdserver: request timed out', 'unavailable'],
    [status.UNAVAILABLE, 'etcdserver: leader changed', 'unavailable'],
    [status.DEADLINE_EXCEEDED, 'Deadline exceeded', 'unavailable'],
    [status.CANCELLED, 'Call cancelled', 'unavailable'],
    [status.RESOURCE_EXHAUSTED, 'etcdserver: too many requests', 'unavailable'],
    [status.INVALID_ARGUMENT, 'etcdserver: key is not provided', 'other'],
  ])('code %i "%s" → %s', (code, details, kind) => {
    expect(classifyEtcdError(grpcError(code, details))).toBe(kind);
  });

  it('anything that is not a gRPC error is "other"', () => {
    expect(classifyEtcdError(new Error('boom'))).toBe('other');
    expect(classifyEtcdError(undefined)).toBe('other');
    expect(classifyEtcdError('text')).toBe('other');
  });
});

describe('toStorageError', () => {
  it('maps an unreachable server to Unreachable, keeping the cause', () => {
    const cause = grpcError(status.UNAVAILABLE, 'No connection established');
    const e = toStorageError(cause, '/registry/x');
    expect(isStorageError(e, 'Unreachable')).toBe(true);
    expect((e as Error).cause).toBe(cause);
    expect((e as { key: string }).key).toBe('/registry/x');
  });

  it('maps a refused large request to RequestTooLarge with the sizes', () => {
    const e = toStorageError(grpcError(status.INVALID_ARGUMENT, 'etcdserver: request is too large'), '/k', {
      bytes: 2_000_000,
      limit: 1_572_864,
    });
    expect(isStorageError(e, 'RequestTooLarge')).toBe(true);
    expect((e as Error).message).toContain('2000000');
  });

  it('returns other errors unchanged', () => {
    const other = grpcError(status.INVALID_ARGUMENT, 'etcdserver: key is not provided');
    expect(toStorageError(other, '/k')).toBe(other);
  });
});

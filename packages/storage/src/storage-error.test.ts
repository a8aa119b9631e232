import { toStatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { storageErrors, watchStatusOf } from './storage-error.ts';

describe('watchStatusOf', () => {
  it("keeps an unreachable backend's reason in the Status a watch ends with, as kube's ServerTimeout", () => {
    const err = storageErrors.unreachable('/registry/widgets', new Error('TLS handshake with etcd at https://127.0.0.1:2379 failed'));
    const status = watchStatusOf(err);
    expect(status).toMatchObject({ code: 500, reason: 'ServerTimeout', details: { retryAfterSeconds: 2 } });
    expect(status.message).toBe('server unreachable: TLS handshake with etcd at https://127.0.0.1:2379 failed');
    // A request still answers kube's own words (the error reaches the caller, who may log it).
    expect(toStatusError(err).status.message).toMatch(/could not be completed at this time/);
  });

  it('is the request Status for every other error', () => {
    for (const err of [storageErrors.expired('too old'), storageErrors.keyNotFound('/registry/widgets/ns/a'), new Error('boom')])
      expect(watchStatusOf(err)).toEqual(toStatusError(err).status);
  });
});

import { decodeContinue, encodeContinue, isBadRequest } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { continueAfter, planList, resolveReadRevision } from './list-plan.ts';
import { isStorageError, MESSAGES } from './storage-error.ts';

const P = '/registry/widgets';

describe('planList', () => {
  it('a recursive list covers key + "/" and reads the latest revision by default', () => {
    const p = planList(P);
    expect(p).toMatchObject({ prefix: `${P}/`, startKey: `${P}/`, readAt: undefined, minRevision: 0, limit: 0, recursive: true });
  });

  it('a non-recursive list covers the exact key and ignores limit', () => {
    expect(planList(`${P}/ns/a`, { recursive: false, predicate: { limit: 5 } })).toMatchObject({ prefix: `${P}/ns/a`, limit: 0 });
  });

  it('NotOlderThan sets a lower bound; Exact pins the revision', () => {
    expect(planList(P, { resourceVersion: '7', resourceVersionMatch: 'NotOlderThan' })).toMatchObject({
      minRevision: 7,
      readAt: undefined,
    });
    expect(planList(P, { resourceVersion: '7', resourceVersionMatch: 'Exact' })).toMatchObject({ minRevision: 0, readAt: 7 });
  });

  it('legacy rule: no match, recursive, limit > 0 and rv > 0 means Exact; otherwise NotOlderThan', () => {
    expect(planList(P, { resourceVersion: '7', predicate: { limit: 2 } }).readAt).toBe(7);
    expect(planList(P, { resourceVersion: '7' })).toMatchObject({ readAt: undefined, minRevision: 7 });
    expect(planList(P, { resourceVersion: '0', predicate: { limit: 2 } })).toMatchObject({ readAt: undefined, minRevision: 0 });
    expect(planList(`${P}/ns/a`, { resourceVersion: '7', recursive: false, predicate: { limit: 2 } }).readAt).toBeUndefined();
  });

  it('rejects an unknown match and a malformed resourceVersion with 400', () => {
    expect(() => planList(P, { resourceVersion: '7', resourceVersionMatch: 'Sometime' as never })).toThrow(/unknown ResourceVersionMatch/);
    try {
      planList(P, { resourceVersion: 'x1' });
      expect.unreachable();
    } catch (e) {
      expect(isBadRequest(e)).toBe(true);
    }
  });

  it('continue: starts at the token key, reads at its revision, and refuses an explicit resourceVersion', () => {
    const token = encodeContinue(`${P}/ns/b\u0000`, `${P}/`, 12);
    expect(planList(P, { predicate: { continue: token, limit: 1 } })).toMatchObject({
      startKey: `${P}/ns/b\u0000`,
      readAt: 12,
      continuing: true,
    });
    expect(planList(P, { resourceVersion: '0', predicate: { continue: token } }).readAt).toBe(12);
    expect(() => planList(P, { resourceVersion: '5', predicate: { continue: token } })).toThrow(
      'specifying resource version is not allowed when using continue',
    );
  });

  it('continue with rv -1 reads the latest revision', () => {
    const token = encodeContinue(`${P}/ns/b\u0000`, `${P}/`, -1);
    expect(planList(P, { predicate: { continue: token } }).readAt).toBeUndefined();
  });
});

describe('resolveReadRevision', () => {
  it('returns the latest, the pinned revision, or fails too large / expired', () => {
    expect(resolveReadRevision(planList(P), 10, 0)).toBe(10);
    expect(resolveReadRevision(planList(P, { resourceVersion: '4', resourceVersionMatch: 'Exact' }), 10, 3)).toBe(4);
    expect(() => resolveReadRevision(planList(P, { resourceVersion: '11', resourceVersionMatch: 'Exact' }), 10, 0)).toThrow(
      'Too large resource version: 11, current: 10',
    );
    expect(() => resolveReadRevision(planList(P, { resourceVersion: '11' }), 10, 0)).toThrow('Too large resource version: 11, current: 10');
    try {
      resolveReadRevision(planList(P, { resourceVersion: '2', resourceVersionMatch: 'Exact' }), 10, 3);
      expect.unreachable();
    } catch (e) {
      expect(isStorageError(e, 'Expired')).toBe(true);
      expect((e as Error).message).toBe(MESSAGES.listExpired);
    }
  });

  it('a compacted continue token gives the inconsistent-continue error with a fresh rv -1 token at the same start', () => {
    const token = encodeContinue(`${P}/ns/b\u0000`, `${P}/`, 2);
    try {
      resolveReadRevision(planList(P, { predicate: { continue: token } }), 10, 3);
      expect.unreachable();
    } catch (e) {
      expect(isStorageError(e, 'Expired')).toBe(true);
      const status = (e as import('./storage-error.ts').StorageError).toStatusError('widgets').status;
      expect(status.code).toBe(410);
      expect(status.message).toBe(MESSAGES.inconsistentContinue);
      const fresh = decodeContinue(status.metadata.continue as string, `${P}/`);
      expect(fresh).toEqual({ fromKey: `${P}/ns/b\u0000`, rv: -1 });
    }
  });

  it('continueAfter encodes the key after the last one returned', () => {
    const plan = planList(P);
    expect(decodeContinue(continueAfter(plan, `${P}/ns/a`, 9), `${P}/`)).toEqual({ fromKey: `${P}/ns/a\u0000`, rv: 9 });
  });
});

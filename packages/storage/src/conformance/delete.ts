import type { KubeObject } from '@kapi/apimachinery';
import { expect } from 'vitest';
import type { DeleteOptions } from '../interfaces.ts';
import { deepFreeze, expectStorageError, failure, rvOf, type SuiteContext, statusOf, type Test, within, withRV } from './harness.ts';

export function deleteTests(ctx: SuiteContext, test: Test): void {
  const del = (name: string, opts?: DeleteOptions) => ctx.s.delete(ctx.key(name), opts);
  const labelsOf = (o: KubeObject) => o.metadata.labels ?? {};

  test('returns the last stored state with the deletion revision, which is the current revision after', async () => {
    await ctx.create('a');
    const last = await ctx.resize('a', 3);
    await ctx.create('b');
    const deleted = await del('a');
    const rv = rvOf(deleted);
    expect(rv).toBeGreaterThan(rvOf(last));
    expect(rv).toBe(await ctx.rev());
    expect(deleted).toEqual(withRV(last, rv));
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
    expect(await ctx.s.count(ctx.dir())).toBe(1);
  });

  test('a missing key is KeyNotFound, and so is deleting twice', async () => {
    const e = await failure(() => del('missing'), 'delete of a missing key');
    expectStorageError(e, 'KeyNotFound');
    expect(statusOf(e).code).toBe(404);
    await ctx.create('a');
    await del('a');
    const before = await ctx.rev();
    expectStorageError(await failure(() => del('a'), 'second delete'), 'KeyNotFound');
    expect(await ctx.rev()).toBe(before);
  });

  test('a UID precondition that does not hold is a Conflict and the object survives', async () => {
    const created = await ctx.s.create(ctx.key('a'), ctx.obj('a', { uid: 'A' }));
    const before = await ctx.rev();
    const e = await failure(() => del('a', { preconditions: { uid: 'B' } }), 'delete with a failing UID precondition');
    expectStorageError(e, 'Conflict', 'Precondition failed: UID in precondition: B, UID in object meta: A');
    expect(statusOf(e).code).toBe(409);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
    expect(await ctx.rev()).toBe(before);
    const deleted = await del('a', { preconditions: { uid: 'A' } });
    expect(deleted).toEqual(withRV(created, rvOf(deleted)));
  });

  test('a resourceVersion precondition must match the stored object', async () => {
    const created = await ctx.create('a');
    const current = await ctx.resize('a', 2);
    const e = await failure(
      () => del('a', { preconditions: { resourceVersion: created.metadata.resourceVersion } }),
      'delete with a stale RV',
    );
    expectStorageError(
      e,
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${rvOf(created)}, ResourceVersion in object meta: ${rvOf(current)}`,
    );
    expect(await ctx.s.get(ctx.key('a'))).toEqual(current);
    const deleted = await del('a', { preconditions: { resourceVersion: current.metadata.resourceVersion } });
    expect(rvOf(deleted)).toBeGreaterThan(rvOf(current));
  });

  test('validateDeletion sees the stored object; throwing keeps the object and its error is returned', async () => {
    const created = await ctx.create('a', { labels: { keep: 'yes' } });
    const seen: KubeObject[] = [];
    const boom = new Error('validation error');
    const e = await failure(
      () =>
        del('a', {
          validateDeletion: (cur) => {
            seen.push(cur);
            throw boom;
          },
        }),
      'delete refused by validateDeletion',
    );
    expect(e).toBe(boom);
    expect(seen).toEqual([created]);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
    const asyncRefusal = await failure(() => del('a', { validateDeletion: async () => Promise.reject(boom) }), 'async refusal');
    expect(asyncRefusal).toBe(boom);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
  });

  test('validateDeletion is checked against the fresh object when cachedExisting is stale', async () => {
    const original = await ctx.create('a');
    const updated = await ctx.relabel('a', { foo: 'bar' });
    const calls: KubeObject[] = [];
    const deleted = await del('a', {
      cachedExisting: original,
      validateDeletion: (cur) => {
        calls.push(cur);
        if (labelsOf(cur).foo !== 'bar') throw new Error('stale object');
      },
    });
    expect(calls.length).toBeLessThanOrEqual(2);
    expect(calls[calls.length - 1]).toEqual(updated);
    expect(deleted).toEqual(withRV(updated, rvOf(deleted)));
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
  });

  test('validateDeletion that only the stale cachedExisting passes fails, and the object survives', async () => {
    const original = await ctx.create('a', { labels: { foo: 'bar' } });
    const updated = await ctx.relabel('a', { foo: 'barbar' });
    let calls = 0;
    const e = await failure(
      () =>
        del('a', {
          cachedExisting: original,
          validateDeletion: (cur) => {
            calls++;
            if (labelsOf(cur).foo !== 'bar') throw new Error('stale object');
          },
        }),
      'delete that only the cached object would allow',
    );
    expect((e as Error).message).toBe('stale object');
    expect(calls).toBeLessThanOrEqual(2);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(updated);
  });

  test('a write during validateDeletion makes delete re-check the fresh object and return it', async () => {
    await ctx.create('a');
    let calls = 0;
    let updated: KubeObject | undefined;
    const deleted = await within(
      del('a', {
        validateDeletion: async () => {
          calls++;
          if (calls === 1) updated = await ctx.relabel('a', { foo: 'bar' });
        },
      }),
      ctx.opts.eventTimeoutMs,
      'a delete whose validateDeletion writes the key (does delete hold a lock while validating?)',
    );
    expect(calls).toBe(2);
    expect(updated).toBeDefined();
    expect(deleted).toEqual(withRV(updated as KubeObject, rvOf(deleted)));
    expect(rvOf(deleted)).toBeGreaterThan(rvOf(updated));
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
  });

  test('a stale cachedExisting is not trusted: the fresh state is deleted and returned', async () => {
    const original = deepFreeze(await ctx.create('a'));
    const updated = await ctx.relabel('a', { foo: 'bar' });
    const deleted = await del('a', { cachedExisting: original });
    expect(deleted).toEqual(withRV(updated, rvOf(deleted)));
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
  });

  test('a cachedExisting of an object that is already gone is KeyNotFound', async () => {
    const original = await ctx.create('a');
    await del('a', { cachedExisting: original });
    expectStorageError(await failure(() => del('a', { cachedExisting: original }), 'delete of a gone object'), 'KeyNotFound');
  });

  test('a precondition that holds only on the stale cachedExisting is a Conflict; the object survives', async () => {
    const original = await ctx.s.create(ctx.key('a'), ctx.obj('a', { uid: 'myUID' }));
    const updated = await ctx.update('a', (o) => {
      o.metadata.uid = 'otherUID';
    });
    const e = await failure(
      () => del('a', { cachedExisting: original, preconditions: { uid: 'myUID' } }),
      'delete with a stale precondition',
    );
    expectStorageError(e, 'Conflict', 'Precondition failed: UID in precondition: myUID, UID in object meta: otherUID');
    expect(await ctx.s.get(ctx.key('a'))).toEqual(updated);
  });

  test('a precondition that fails only on the stale cachedExisting is re-checked and the delete succeeds', async () => {
    const original = await ctx.create('a');
    const updated = await ctx.update('a', (o) => {
      o.metadata.uid = 'myUID';
    });
    const deleted = await del('a', { cachedExisting: original, preconditions: { uid: 'myUID' } });
    expect(deleted).toEqual(withRV(updated, rvOf(deleted)));
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
  });
}

import { expect } from 'vitest';
import { MESSAGES } from '../storage-error.ts';
import { deepFreeze, expectStorageError, failure, rvOf, type SuiteContext, statusOf, type Test, withRV } from './harness.ts';

export function createTests(ctx: SuiteContext, test: Test): void {
  test('returns the stored object with the new revision as its resourceVersion', async () => {
    const before = await ctx.rev();
    const input = ctx.obj('a', { labels: { app: 'web' } });
    const created = await ctx.s.create(ctx.key('a'), input);
    const rv = rvOf(created);
    expect(rv).toBeGreaterThan(before);
    expect(rv).toBe(await ctx.rev());
    expect(created).toEqual(withRV(input, rv));
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
  });

  test('every create gets its own, increasing revision that stays the object mod revision', async () => {
    const [a, b, c] = await ctx.createAll(['a', 'b', 'c']);
    expect(rvOf(a)).toBeLessThan(rvOf(b));
    expect(rvOf(b)).toBeLessThan(rvOf(c));
    expect(await ctx.s.get(ctx.key('a'))).toEqual(a);
    expect(await ctx.s.get(ctx.key('b'))).toEqual(b);
  });

  test('refuses an object that already has a resourceVersion, storing nothing', async () => {
    const before = await ctx.rev();
    const input = withRV(ctx.obj('a'), 1);
    const e = await failure(() => ctx.s.create(ctx.key('a'), input), 'create with resourceVersion');
    expect((e as Error).message).toContain(MESSAGES.rvOnCreate);
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
    expect(await ctx.rev()).toBe(before);
  });

  test('an existing key is KeyExists (409 AlreadyExists) and the stored object is untouched', async () => {
    const first = await ctx.create('a', { spec: { size: 1 } });
    const before = await ctx.rev();
    const e = await failure(() => ctx.s.create(ctx.key('a'), ctx.obj('a', { spec: { size: 2 } })), 'second create');
    expectStorageError(e, 'KeyExists');
    const st = statusOf(e);
    expect(st.code).toBe(409);
    expect(st.reason).toBe('AlreadyExists');
    expect(await ctx.s.get(ctx.key('a'))).toEqual(first);
    expect(await ctx.rev()).toBe(before);
  });

  test('does not mutate its input (a deep-frozen object is accepted and returned as a copy)', async () => {
    const input = deepFreeze(ctx.obj('a', { labels: { app: 'web' } }));
    const snapshot = structuredClone(input);
    const created = await ctx.s.create(ctx.key('a'), input);
    expect(input).toEqual(snapshot);
    expect(input.metadata.resourceVersion).toBeUndefined();
    expect(created).not.toBe(input);
    expect(created).toEqual(withRV(snapshot, rvOf(created)));
  });

  test('a key can be created again after it was deleted, with a new revision', async () => {
    const first = await ctx.create('a');
    const deleted = await ctx.remove('a');
    const again = await ctx.create('a', { spec: { size: 7 } });
    expect(rvOf(again)).toBeGreaterThan(rvOf(deleted));
    expect(rvOf(deleted)).toBeGreaterThan(rvOf(first));
    expect(await ctx.s.get(ctx.key('a'))).toEqual(again);
  });

  test('ttlSeconds: the key is removed when it expires and watchers see DELETED', async () => {
    const created = await ctx.s.create(ctx.key('a'), ctx.obj('a'), { ttlSeconds: 1 });
    const keeper = await ctx.create('b');
    const r = ctx.watch(ctx.dir(), { resourceVersion: String(rvOf(keeper)) });
    await ctx.h.elapse(400);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
    await ctx.h.elapse(1100);
    const ev = await r.next('DELETED for the expired key');
    expect(ev.type).toBe('DELETED');
    if (ev.type === 'ERROR') return;
    expect(ev.object.metadata.name).toBe('a');
    expect(rvOf(ev.object)).toBeGreaterThan(rvOf(keeper));
    expect({ ...ev.object, metadata: { ...ev.object.metadata, resourceVersion: undefined } }).toEqual({
      ...created,
      metadata: { ...created.metadata, resourceVersion: undefined },
    });
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
    expect(await ctx.s.get(ctx.key('b'))).toEqual(keeper);
  });
}

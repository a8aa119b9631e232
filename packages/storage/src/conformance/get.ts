import { expect } from 'vitest';
import { expectBadRequest, expectStorageError, expectTooLarge, failure, rvOf, type SuiteContext, statusOf, type Test } from './harness.ts';

export function getTests(ctx: SuiteContext, test: Test): void {
  test('resourceVersion "" is a consistent read of the latest state', async () => {
    await ctx.create('a');
    const updated = await ctx.resize('a', 5);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(updated);
    expect(await ctx.s.get(ctx.key('a'), { resourceVersion: '' })).toEqual(updated);
  });

  test('the object carries its own mod revision, not the store revision', async () => {
    const a = await ctx.create('a');
    await ctx.create('b');
    await ctx.create('x', { ns: ctx.otherNs() });
    const got = await ctx.s.get(ctx.key('a'));
    expect(rvOf(got)).toBe(rvOf(a));
    expect(rvOf(got)).toBeLessThan(await ctx.rev());
  });

  test('resourceVersion "0" serves some committed state (the latest on a backend without a cache)', async () => {
    const created = await ctx.create('a');
    const updated = await ctx.resize('a', 5);
    const got = await ctx.s.get(ctx.key('a'), { resourceVersion: '0', ignoreNotFound: true });
    if (ctx.opts.cache) expect([null, created, updated]).toContainEqual(got);
    else expect(got).toEqual(updated);
  });

  test('resourceVersion "N" at or below the current revision is served (not older than N)', async () => {
    const created = await ctx.create('a');
    const updated = await ctx.resize('a', 5);
    await ctx.create('b');
    const current = await ctx.rev();
    for (const n of [rvOf(created), rvOf(updated), current]) {
      const got = await ctx.s.get(ctx.key('a'), { resourceVersion: String(n) });
      if (ctx.opts.cache && n < rvOf(updated)) expect([created, updated]).toContainEqual(got);
      else expect(got).toEqual(updated);
    }
  });

  test('resourceVersion above the current revision is too large (504, ResourceVersionTooLarge)', async () => {
    await ctx.create('a');
    const current = await ctx.rev();
    expectTooLarge(await failure(() => ctx.s.get(ctx.key('a'), { resourceVersion: String(current + 1000) }), 'get at a future RV'));
  });

  test('a missing key is KeyNotFound (404 NotFound)', async () => {
    await ctx.create('a');
    const e = await failure(() => ctx.s.get(ctx.key('missing')), 'get of a missing key');
    expectStorageError(e, 'KeyNotFound');
    const st = statusOf(e);
    expect(st.code).toBe(404);
    expect(st.reason).toBe('NotFound');
  });

  test('ignoreNotFound returns null for a missing key', async () => {
    expect(await ctx.s.get(ctx.key('missing'), { ignoreNotFound: true })).toBeNull();
    const a = await ctx.create('a');
    expect(await ctx.s.get(ctx.key('a'), { ignoreNotFound: true })).toEqual(a);
  });

  test('a deleted key is KeyNotFound', async () => {
    await ctx.create('a');
    await ctx.remove('a');
    expectStorageError(await failure(() => ctx.s.get(ctx.key('a'))), 'KeyNotFound');
  });

  test('a directory holding objects is not itself an object', async () => {
    await ctx.create('a');
    expectStorageError(await failure(() => ctx.s.get(ctx.dir())), 'KeyNotFound');
  });

  test('a malformed resourceVersion is 400 "invalid resource version"', async () => {
    await ctx.create('a');
    for (const rv of ['abc', '-1', '1.5', ' 1']) {
      expectBadRequest(
        await failure(() => ctx.s.get(ctx.key('a'), { resourceVersion: rv }), `get with RV ${rv}`),
        'invalid resource version',
      );
    }
  });
}

import { expect } from 'vitest';
import { failure, rvOf, type SuiteContext, type Test } from './harness.ts';

export function countTests(ctx: SuiteContext, test: Test): void {
  test('count: objects under a prefix; updates leave it, deletes lower it', async () => {
    expect(await ctx.s.count(ctx.dir())).toBe(0);
    await ctx.createAll(['a', 'b', 'c']);
    await ctx.s.create(`${ctx.dir()}/d/nested`, ctx.obj('dn'));
    await ctx.create('x', { ns: ctx.otherNs() });
    expect(await ctx.s.count(ctx.dir())).toBe(4);
    await ctx.resize('a', 2);
    expect(await ctx.s.count(ctx.dir())).toBe(4);
    await ctx.remove('b');
    expect(await ctx.s.count(ctx.dir())).toBe(3);
    expect(await ctx.s.count(ctx.dir(ctx.otherNs()))).toBe(1);
  });

  test('count of /x/foo does not include /x/foobar', async () => {
    await ctx.create('foo');
    await ctx.create('foobar');
    await ctx.s.create(`${ctx.key('foo')}/child`, ctx.obj('child'));
    expect(await ctx.s.count(ctx.key('foo'))).toBe(1);
    expect(await ctx.s.count(`${ctx.key('foo')}/`)).toBe(1);
    expect(await ctx.s.count(ctx.key('foobar'))).toBe(0);
  });

  test('currentResourceVersion follows every write and equals the revision the write returned', async () => {
    const r0 = await ctx.rev();
    const a = await ctx.create('a');
    expect(await ctx.rev()).toBe(rvOf(a));
    expect(rvOf(a)).toBeGreaterThan(r0);
    const a2 = await ctx.resize('a', 2);
    expect(await ctx.rev()).toBe(rvOf(a2));
    const gone = await ctx.remove('a');
    expect(await ctx.rev()).toBe(rvOf(gone));
    expect(rvOf(gone)).toBeGreaterThan(rvOf(a2));
    const x = await ctx.create('x', { ns: ctx.otherNs() });
    expect(await ctx.rev()).toBe(rvOf(x));
  });

  test('currentResourceVersion does not move on reads or on writes that fail or change nothing', async () => {
    const a = await ctx.s.create(ctx.key('a'), ctx.obj('a', { uid: 'A' }));
    const r = await ctx.rev();
    await ctx.s.get(ctx.key('a'));
    await ctx.s.list(ctx.dir());
    await ctx.s.count(ctx.dir());
    await failure(() => ctx.s.create(ctx.key('a'), ctx.obj('a')), 'duplicate create');
    await failure(() => ctx.s.delete(ctx.key('a'), { preconditions: { uid: 'B' } }), 'delete with a failing precondition');
    await failure(() => ctx.s.delete(ctx.key('missing')), 'delete of a missing key');
    await failure(
      () =>
        ctx.s.guaranteedUpdate(ctx.key('a'), () => {
          throw new Error('no');
        }),
      'update that throws',
    );
    await ctx.s.guaranteedUpdate(ctx.key('a'), (cur) => structuredClone(cur ?? a));
    expect(await ctx.rev()).toBe(r);
    expect(await ctx.s.currentResourceVersion()).toBe(String(r));
  });
}

import { expect } from 'vitest';
import { isStorageError } from '../storage-error.ts';
import { failure, type SuiteContext, type Test } from './harness.ts';

function expectKeyError(e: unknown, why: 'empty key' | 'invalid key', what: string): void {
  expect(isStorageError(e, 'InvalidKey'), `${what}: expected StorageError InvalidKey, got ${String(e)}`).toBe(true);
  expect((e as Error).message, what).toContain(why);
}

export function keyTests(ctx: SuiteContext, test: Test): void {
  const empty = ['', '/'];
  const invalid = () => ['.', '..', `${ctx.p}/../x`, `${ctx.dir()}/./a`, `${ctx.dir()}/..`, `${ctx.dir()}/.`, `../${ctx.p.slice(1)}/a`];

  test('reads refuse "" and "/" as "empty key" and "." / ".." segments as "invalid key"', async () => {
    await ctx.create('a');
    for (const [keys, why] of [
      [empty, 'empty key'],
      [invalid(), 'invalid key'],
    ] as const) {
      for (const k of keys) {
        expectKeyError(await failure(() => ctx.s.get(k), `get ${k}`), why, `get ${JSON.stringify(k)}`);
        expectKeyError(await failure(() => ctx.s.list(k), `list ${k}`), why, `list ${JSON.stringify(k)}`);
        expectKeyError(
          await failure(() => ctx.s.list(k, { recursive: false }), `list ${k}`),
          why,
          `non-recursive list ${JSON.stringify(k)}`,
        );
        expectKeyError(await failure(() => ctx.s.count(k), `count ${k}`), why, `count ${JSON.stringify(k)}`);
      }
    }
  });

  test('writes refuse "" and "/" as "empty key" and "." / ".." segments as "invalid key", writing nothing', async () => {
    const before = await ctx.rev();
    for (const [keys, why] of [
      [empty, 'empty key'],
      [invalid(), 'invalid key'],
    ] as const) {
      for (const k of keys) {
        expectKeyError(await failure(() => ctx.s.create(k, ctx.obj('a')), `create ${k}`), why, `create ${JSON.stringify(k)}`);
        expectKeyError(
          await failure(() => ctx.s.guaranteedUpdate(k, () => ctx.obj('a'), { ignoreNotFound: true }), `update ${k}`),
          why,
          `guaranteedUpdate ${JSON.stringify(k)}`,
        );
        expectKeyError(await failure(() => ctx.s.delete(k), `delete ${k}`), why, `delete ${JSON.stringify(k)}`);
      }
    }
    expect(await ctx.rev()).toBe(before);
  });

  test('watch refuses "" and "/" as "empty key" and "." / ".." segments as "invalid key"', async () => {
    for (const [keys, why] of [
      [empty, 'empty key'],
      [invalid(), 'invalid key'],
    ] as const) {
      for (const k of keys) {
        const e = await ctx.watchFailure(k, { resourceVersion: '0' });
        expect((e as Error).message, `watch ${JSON.stringify(k)}`).toContain(why);
      }
    }
  });
}

import { type KubeObject, newConflict } from '@kapi/apimachinery';
import { expect } from 'vitest';
import type { UpdateFunc, UpdateOptions } from '../interfaces.ts';
import { deepFreeze, expectStorageError, failure, rvOf, type SuiteContext, statusOf, type Test, within, withRV } from './harness.ts';

type Spec = { size?: number; count?: number; note?: string; gen?: number };
const spec = (o: KubeObject | null | undefined): Spec => (o?.spec ?? {}) as Spec;

/** A copy of `o` with spec fields changed. */
function withSpec(o: KubeObject, s: Spec): KubeObject {
  const c = structuredClone(o);
  c.spec = { ...(c.spec as Spec), ...s };
  return c;
}

export function updateTests(ctx: SuiteContext, test: Test): void {
  const gu = (name: string, fn: UpdateFunc, opts?: UpdateOptions) => ctx.s.guaranteedUpdate(ctx.key(name), fn, opts);

  test('an update writes a new revision and returns the stored object', async () => {
    const created = await ctx.create('a');
    const seen: (KubeObject | null)[] = [];
    const updated = await gu('a', (cur) => {
      seen.push(cur);
      return withSpec(cur as KubeObject, { size: 5 });
    });
    expect(seen).toEqual([created]);
    const rv = rvOf(updated);
    expect(rv).toBeGreaterThan(rvOf(created));
    expect(rv).toBe(await ctx.rev());
    expect(updated).toEqual(withRV(withSpec(created, { size: 5 }), rv));
    expect(await ctx.s.get(ctx.key('a'))).toEqual(updated);
  });

  test('ignoreNotFound: tryUpdate gets null and what it returns is created', async () => {
    const before = await ctx.rev();
    const calls: (KubeObject | null)[] = [];
    const input = ctx.obj('a', { spec: { size: 3 } });
    const created = await gu(
      'a',
      (cur) => {
        calls.push(cur);
        return input;
      },
      { ignoreNotFound: true },
    );
    expect(calls).toEqual([null]);
    expect(rvOf(created)).toBeGreaterThan(before);
    expect(created).toEqual(withRV(input, rvOf(created)));
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
  });

  test('a missing key is KeyNotFound without ignoreNotFound, and tryUpdate is not called', async () => {
    let calls = 0;
    const e = await failure(
      () =>
        gu('missing', (cur) => {
          calls++;
          return cur ?? ctx.obj('missing');
        }),
      'update of a missing key',
    );
    expectStorageError(e, 'KeyNotFound');
    expect(statusOf(e).code).toBe(404);
    expect(calls).toBe(0);
    expect(await ctx.s.get(ctx.key('missing'), { ignoreNotFound: true })).toBeNull();
  });

  test('an update that changes nothing writes nothing and keeps the resourceVersion (watchers see nothing)', async () => {
    const created = await ctx.create('a');
    const before = await ctx.rev();
    const r = ctx.watch(ctx.dir(), { resourceVersion: String(before) });
    const same = await gu('a', (cur) => structuredClone(cur as KubeObject));
    expect(same).toEqual(created);
    expect(await ctx.rev()).toBe(before);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
    const sentinel = await ctx.create('zz-sentinel');
    const events = await r.untilName('zz-sentinel');
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(events[0]?.object).toEqual(sentinel);
  });

  test('a UID precondition that does not hold is a Conflict naming both UIDs; the object is untouched', async () => {
    const created = await ctx.s.create(ctx.key('a'), ctx.obj('a', { uid: 'A' }));
    const before = await ctx.rev();
    let calls = 0;
    const e = await failure(
      () =>
        gu(
          'a',
          (cur) => {
            calls++;
            return withSpec(cur as KubeObject, { size: 9 });
          },
          { preconditions: { uid: 'B' } },
        ),
      'update with a failing UID precondition',
    );
    expectStorageError(e, 'Conflict', 'Precondition failed: UID in precondition: B, UID in object meta: A');
    expect(statusOf(e).code).toBe(409);
    expect(calls).toBe(0);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
    expect(await ctx.rev()).toBe(before);
  });

  test('a resourceVersion precondition that does not hold is a Conflict naming both versions', async () => {
    const created = await ctx.create('a');
    const stale = rvOf(created);
    const current = await ctx.resize('a', 2);
    const e = await failure(
      () => gu('a', (cur) => withSpec(cur as KubeObject, { size: 9 }), { preconditions: { resourceVersion: String(stale) } }),
      'update with a stale resourceVersion precondition',
    );
    expectStorageError(
      e,
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${stale}, ResourceVersion in object meta: ${rvOf(current)}`,
    );
    expect(await ctx.s.get(ctx.key('a'))).toEqual(current);
  });

  test('preconditions that hold let the update through', async () => {
    const created = await ctx.s.create(ctx.key('a'), ctx.obj('a', { uid: 'A' }));
    const updated = await gu('a', (cur) => withSpec(cur as KubeObject, { size: 4 }), {
      preconditions: { uid: 'A', resourceVersion: created.metadata.resourceVersion },
    });
    expect(spec(updated).size).toBe(4);
    expect(rvOf(updated)).toBeGreaterThan(rvOf(created));
  });

  test('a stale cachedExisting is re-read: tryUpdate runs again with the fresh object', async () => {
    const original = await ctx.create('a', { spec: { count: 0 } });
    await ctx.update('a', (o) => {
      (o.spec as Spec).count = 1;
    });
    const seen: number[] = [];
    const out = await gu(
      'a',
      (cur) => {
        seen.push(spec(cur).count ?? -1);
        return withSpec(cur as KubeObject, { count: (spec(cur).count ?? 0) + 1 });
      },
      { cachedExisting: original },
    );
    expect(spec(out).count).toBe(2);
    expect(seen.length).toBeLessThanOrEqual(2);
    expect(seen[seen.length - 1]).toBe(1);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(out);
  });

  test('a stale cachedExisting that makes tryUpdate fail is re-checked against a fresh read', async () => {
    const original = await ctx.create('a', { spec: { gen: 1 } });
    await ctx.update('a', (o) => {
      (o.spec as Spec).gen = 2;
    });
    let sawStale = 0;
    const out = await gu(
      'a',
      (cur) => {
        if (spec(cur).gen !== 2) {
          sawStale++;
          throw newConflict('widgets', 'a', 'stale object');
        }
        return withSpec(cur as KubeObject, { gen: 3 });
      },
      { cachedExisting: original },
    );
    expect(sawStale).toBeLessThanOrEqual(1);
    expect(spec(out).gen).toBe(3);
  });

  test('an error from tryUpdate on an up-to-date cachedExisting is returned (tryUpdate runs at most twice)', async () => {
    const current = await ctx.create('a');
    let attempts = 0;
    const boom = new Error('validation or admission error');
    const e = await failure(
      () =>
        gu(
          'a',
          () => {
            attempts++;
            throw boom;
          },
          { cachedExisting: current },
        ),
      'update whose tryUpdate throws',
    );
    expect(e).toBe(boom);
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(2);
  });

  test('a precondition that holds only on the stale cachedExisting fails against the fresh object', async () => {
    const original = await ctx.s.create(ctx.key('a'), ctx.obj('a', { uid: 'A' }));
    const current = await ctx.update('a', (o) => {
      o.metadata.uid = 'B';
    });
    const e = await failure(
      () => gu('a', (cur) => withSpec(cur as KubeObject, { size: 8 }), { preconditions: { uid: 'A' }, cachedExisting: original }),
      'update with a precondition only the cached object meets',
    );
    expectStorageError(e, 'Conflict', 'Precondition failed: UID in precondition: A, UID in object meta: B');
    expect(await ctx.s.get(ctx.key('a'))).toEqual(current);
  });

  test('a precondition that fails only on the stale cachedExisting is re-checked and the update succeeds', async () => {
    const original = await ctx.create('a');
    await ctx.update('a', (o) => {
      o.metadata.uid = 'myUID';
    });
    const out = await gu('a', (cur) => withSpec(cur as KubeObject, { size: 8 }), {
      preconditions: { uid: 'myUID' },
      cachedExisting: original,
    });
    expect(spec(out).size).toBe(8);
    expect(out.metadata.uid).toBe('myUID');
  });

  test('a conflicting write during tryUpdate makes tryUpdate run again with the fresh object', async () => {
    await ctx.create('a', { spec: { count: 0 } });
    const seen: Spec[] = [];
    const out = await within(
      gu('a', async (cur) => {
        seen.push(spec(cur));
        if (seen.length === 1) {
          await ctx.update('a', (o) => {
            (o.spec as Spec).note = 'concurrent';
          });
        }
        return withSpec(cur as KubeObject, { count: (spec(cur).count ?? 0) + 1 });
      }),
      ctx.opts.eventTimeoutMs,
      'an update whose tryUpdate writes the same key (does tryUpdate run under a lock?)',
    );
    expect(seen.length).toBe(2);
    expect(seen[1]?.note).toBe('concurrent');
    expect(spec(out)).toMatchObject({ count: 1, note: 'concurrent' });
    expect(await ctx.s.get(ctx.key('a'))).toEqual(out);
  });

  test('two interleaved updates: the one that loses the race calls tryUpdate again', async () => {
    await ctx.create('a');
    let releaseFirst!: () => void;
    const secondEntered = new Promise<void>((r) => {
      releaseFirst = r;
    });
    let firstDone!: () => void;
    const firstFinished = new Promise<void>((r) => {
      firstDone = r;
    });
    const first = gu('a', async (cur) => {
      await secondEntered;
      return withSpec(cur as KubeObject, { note: 'first' });
    }).finally(() => firstDone());
    let secondCalls = 0;
    const second = gu('a', async (cur) => {
      if (secondCalls++ === 0) {
        releaseFirst();
        await firstFinished;
      }
      return withSpec(cur as KubeObject, { size: 2 });
    });
    const [r1, r2] = await within(
      Promise.all([first, second]),
      ctx.opts.eventTimeoutMs,
      'two interleaved updates (does tryUpdate run under a lock?)',
    );
    expect(secondCalls).toBe(2);
    expect(spec(r1).note).toBe('first');
    expect(spec(r2)).toMatchObject({ note: 'first', size: 2 });
    expect(rvOf(r2)).toBeGreaterThan(rvOf(r1));
  });

  test('50 concurrent increments lose nothing', async () => {
    await ctx.create('counter', { spec: { count: 0 } });
    const start = await ctx.rev();
    const results = await within(
      Promise.all(
        Array.from({ length: 50 }, () =>
          gu('counter', async (cur) => {
            await new Promise<void>((r) => setImmediate(r));
            return withSpec(cur as KubeObject, { count: (spec(cur).count ?? 0) + 1 });
          }),
        ),
      ),
      ctx.opts.eventTimeoutMs * 2,
      '50 concurrent updates',
    );
    const final = await ctx.s.get(ctx.key('counter'));
    expect(spec(final).count).toBe(50);
    const counts = results.map((r) => spec(r).count).sort((x, y) => (x ?? 0) - (y ?? 0));
    expect(counts).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const rvs = results.map((r) => rvOf(r));
    expect(new Set(rvs).size).toBe(50);
    for (const rv of rvs) expect(rv).toBeGreaterThan(start);
    expect(Math.max(...rvs)).toBe(await ctx.rev());
    expect(rvOf(final)).toBe(Math.max(...rvs));
  });

  test('tryUpdate throwing propagates its error and leaves the object intact', async () => {
    const created = await ctx.create('a');
    const before = await ctx.rev();
    const boom = new Error('boom');
    const e = await failure(
      () =>
        gu('a', () => {
          throw boom;
        }),
      'update whose tryUpdate throws',
    );
    expect(e).toBe(boom);
    const rejected = await failure(() => gu('a', async () => Promise.reject(boom)), 'update whose tryUpdate rejects');
    expect(rejected).toBe(boom);
    expect(await ctx.s.get(ctx.key('a'))).toEqual(created);
    expect(await ctx.rev()).toBe(before);
  });

  test('does not mutate what tryUpdate returns (a deep-frozen object is stored)', async () => {
    await ctx.create('a');
    let returned: KubeObject | undefined;
    const out = await gu('a', (cur) => {
      returned = deepFreeze(withSpec(cur as KubeObject, { size: 6 }));
      return returned;
    });
    expect(spec(out).size).toBe(6);
    expect(out).not.toBe(returned);
    expect(returned?.metadata.resourceVersion).not.toBe(out.metadata.resourceVersion);
  });

  test('an update touches only its key: other objects keep their resourceVersion', async () => {
    const [, b] = await ctx.createAll(['a', 'b']);
    await ctx.resize('a', 2);
    expect(await ctx.s.get(ctx.key('b'))).toEqual(b);
  });
}

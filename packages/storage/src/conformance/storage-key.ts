import { type KubeObject, parseLabelSelector, type WatchEvent } from '@kapi/apimachinery';
import { expect } from 'vitest';
import { storageKeyOf } from '../storage-key.ts';
import { rvOf, type SuiteContext, type Test } from './harness.ts';

/** [name, recorded storage key] of each object: what the cases compare. */
const keyed = (objs: readonly KubeObject[]): [string, string | undefined][] => objs.map((o) => [o.metadata.name ?? '', storageKeyOf(o)]);

/** [type, name, recorded storage key] of each event. */
const keyedEvents = (events: readonly WatchEvent[]): [string, string, string | undefined][] =>
  events.map((e) => [e.type, (e.object as KubeObject).metadata?.name ?? '', storageKeyOf(e.object)]);

/**
 * Every object a backend returns has its normalized storage key recorded (`storageKeyOf`), so a layer in front of it
 * (a watch cache) knows where each listed or watched object lives, even when the key does not follow from the object.
 */
export function storageKeyTests(ctx: SuiteContext, test: Test): void {
  /** The objects the cases write: names, and keys that a namespace/name key function cannot derive. */
  const keys = () => ({
    a: ctx.key('a'),
    kid: `${ctx.key('a')}/child`,
    mx: `${ctx.dir()}/m/x`,
    b: ctx.key('b'),
  });

  async function createAll(): Promise<Record<'a' | 'kid' | 'mx' | 'b', KubeObject>> {
    const k = keys();
    return {
      a: await ctx.s.create(k.a, ctx.obj('a', { labels: { app: 'db' } })),
      kid: await ctx.s.create(k.kid, ctx.obj('kid', { labels: { app: 'db' } })),
      mx: await ctx.s.create(k.mx, ctx.obj('mx')),
      b: await ctx.s.create(k.b, ctx.obj('b')),
    };
  }

  /** Sets spec.size of the object at `key`. */
  const resizeAt = (key: string, size: number) =>
    ctx.s.guaranteedUpdate(key, (cur) => ({ ...(cur as KubeObject), spec: { ...((cur as KubeObject).spec as object), size } }));

  /** Sets labels of the object at `key`. */
  const relabelAt = (key: string, labels: Record<string, string>) =>
    ctx.s.guaranteedUpdate(key, (cur) => ({ ...(cur as KubeObject), metadata: { ...(cur as KubeObject).metadata, labels } }));

  test('create, get, guaranteedUpdate and delete return objects carrying their normalized storage key', async () => {
    const k = keys();
    const created = await createAll();
    expect(keyed(Object.values(created))).toEqual([
      ['a', k.a],
      ['kid', k.kid],
      ['mx', k.mx],
      ['b', k.b],
    ]);
    // A key without its leading slash is recorded as normalized.
    const c = await ctx.s.create(ctx.key('c').slice(1), ctx.obj('c'));
    expect(storageKeyOf(c)).toBe(ctx.key('c'));
    expect(storageKeyOf((await ctx.s.get(ctx.key('c').slice(1))) as KubeObject)).toBe(ctx.key('c'));

    for (const [name, key] of Object.entries(k)) {
      const rv = (created as Record<string, KubeObject>)[name]?.metadata.resourceVersion;
      expect(storageKeyOf((await ctx.s.get(key)) as KubeObject), `get ${name}`).toBe(key);
      expect(storageKeyOf((await ctx.s.get(key, { resourceVersion: rv })) as KubeObject), `get ${name} at ${rv}`).toBe(key);
    }

    const kid2 = await resizeAt(k.kid, 2);
    expect(storageKeyOf(kid2), 'an update that writes').toBe(k.kid);
    const same = await ctx.s.guaranteedUpdate(k.kid, (cur) => cur as KubeObject);
    expect(rvOf(same)).toBe(rvOf(kid2));
    expect(storageKeyOf(same), 'an update that changes nothing').toBe(k.kid);
    // A caller's cachedExisting is its own copy: what comes back is still the store's object, with its key.
    const cachedSame = await ctx.s.guaranteedUpdate(k.kid, (cur) => structuredClone(cur as KubeObject), {
      cachedExisting: structuredClone(kid2),
    });
    expect(storageKeyOf(cachedSame), 'an update from cachedExisting that changes nothing').toBe(k.kid);
    const cachedWrite = await ctx.s.guaranteedUpdate(k.mx, (cur) => ({ ...(cur as KubeObject), spec: { size: 3 } }), {
      cachedExisting: structuredClone(created.mx),
    });
    expect(storageKeyOf(cachedWrite), 'an update from cachedExisting that writes').toBe(k.mx);
    const made = await ctx.s.guaranteedUpdate(`${k.b}/deep/er`, () => ctx.obj('deeper'), { ignoreNotFound: true });
    expect(storageKeyOf(made), 'an update that creates').toBe(`${k.b}/deep/er`);

    const gone = await ctx.s.delete(k.kid);
    expect(rvOf(gone)).toBeGreaterThan(rvOf(kid2));
    expect(storageKeyOf(gone), 'delete').toBe(k.kid);
    const goneCached = await ctx.s.delete(k.mx, { cachedExisting: structuredClone(cachedWrite) });
    expect(storageKeyOf(goneCached), 'delete from cachedExisting').toBe(k.mx);
  });

  test('every list item carries its key: recursive lists with nested keys, non-recursive lists, selectors', async () => {
    const k = keys();
    const { b } = await createAll();
    const all: [string, string][] = [
      ['a', k.a],
      ['kid', k.kid],
      ['b', k.b],
      ['mx', k.mx],
    ];
    expect(keyed((await ctx.s.list(ctx.dir())).items)).toEqual(all);
    expect(keyed((await ctx.s.list(ctx.dir(), { resourceVersion: String(rvOf(b)) })).items)).toEqual(all);
    // "0" may be answered from anywhere (a cache as it is): whatever it holds must carry its keys.
    for (const [name, key] of keyed((await ctx.s.list(ctx.dir(), { resourceVersion: '0' })).items)) {
      expect(key, `list at "0": ${name}`).toBe(Object.fromEntries(all)[name]);
    }
    expect(keyed((await ctx.s.list(k.a)).items)).toEqual([['kid', k.kid]]);
    expect(keyed((await ctx.s.list(k.a, { recursive: false })).items)).toEqual([['a', k.a]]);
    expect(keyed((await ctx.s.list(k.kid.slice(1), { recursive: false })).items)).toEqual([['kid', k.kid]]);
    const db = { label: parseLabelSelector('app=db') };
    expect(keyed((await ctx.s.list(ctx.dir(), { predicate: db })).items)).toEqual([
      ['a', k.a],
      ['kid', k.kid],
    ]);
  });

  test('list items at a past revision (Exact) and on every page of a paginated list carry their keys', async () => {
    const k = keys();
    const { b } = await createAll();
    const at = String(rvOf(b));
    // History: the state at `at` is no longer the latest one.
    await resizeAt(k.a, 2);
    await ctx.s.delete(k.kid);
    await ctx.s.delete(k.mx);
    const then: [string, string][] = [
      ['a', k.a],
      ['kid', k.kid],
      ['b', k.b],
      ['mx', k.mx],
    ];
    const exact = await ctx.s.list(ctx.dir(), { resourceVersion: at, resourceVersionMatch: 'Exact' });
    expect(keyed(exact.items)).toEqual(then);

    const pages = async (limit: number, first: { resourceVersion?: string; resourceVersionMatch?: 'Exact' }, selector?: string) => {
      const out: KubeObject[] = [];
      const label = selector ? parseLabelSelector(selector) : undefined;
      let cont: string | undefined;
      let n = 0;
      do {
        const page = await ctx.s.list(ctx.dir(), { ...(cont ? {} : first), predicate: { limit, continue: cont, label } });
        out.push(...page.items);
        cont = page.metadata.continue || undefined;
        expect(++n, 'pages').toBeLessThan(10);
      } while (cont);
      return keyed(out);
    };
    expect(await pages(1, { resourceVersion: at, resourceVersionMatch: 'Exact' })).toEqual(then);
    expect(await pages(3, { resourceVersion: at, resourceVersionMatch: 'Exact' })).toEqual(then);
    expect(await pages(1, {}, 'app=db')).toEqual([['a', k.a]]);
    expect(await pages(1, {})).toEqual([
      ['a', k.a],
      ['b', k.b],
    ]);
  });

  test('watch events carry keys: initial ADDED, then ADDED, MODIFIED and DELETED, from "0", from N and replayed', async () => {
    const k = keys();
    // A write elsewhere first, so that the replay below starts from a revision above 0 ("0" would mean a snapshot).
    const before = rvOf(await ctx.create('x', { ns: ctx.otherNs() }));
    const { b } = await createAll();
    const fromZero = ctx.watch(ctx.dir(), { resourceVersion: '0' });
    const initial = ctx.watch(ctx.dir(), { resourceVersion: String(rvOf(b)), sendInitialEvents: true });
    const fromN = ctx.watch(ctx.dir(), { resourceVersion: String(rvOf(b)) });
    const one = ctx.watch(k.kid, { resourceVersion: String(rvOf(b)), recursive: false });
    const snapshot: [string, string, string][] = [
      ['ADDED', 'a', k.a],
      ['ADDED', 'kid', k.kid],
      ['ADDED', 'b', k.b],
      ['ADDED', 'mx', k.mx],
    ];
    // Key order by code unit, as stores sort keys.
    const byKey = (x: [string, string, string | undefined], y: [string, string, string | undefined]) =>
      String(x[2]) < String(y[2]) ? -1 : 1;
    expect(keyedEvents(await fromZero.take(4, 'initial events from "0"')).sort(byKey)).toEqual(snapshot);
    expect(keyedEvents(await initial.take(4, 'initial events (sendInitialEvents)')).sort(byKey)).toEqual(snapshot);

    await resizeAt(k.kid, 2);
    await ctx.s.create(`${k.kid}/grand`, ctx.obj('grand'));
    await resizeAt(k.a, 2);
    await ctx.s.delete(k.kid);
    await ctx.s.delete(k.mx);
    const changes: [string, string, string][] = [
      ['MODIFIED', 'kid', k.kid],
      ['ADDED', 'grand', `${k.kid}/grand`],
      ['MODIFIED', 'a', k.a],
      ['DELETED', 'kid', k.kid],
      ['DELETED', 'mx', k.mx],
    ];
    for (const [what, r] of [
      ['from "0"', fromZero],
      ['sendInitialEvents', initial],
      ['from N', fromN],
    ] as const) {
      expect(keyedEvents(await r.take(5, `changes (${what})`)), what).toEqual(changes);
    }
    expect(keyedEvents(await one.take(2, 'changes of one key'))).toEqual([
      ['MODIFIED', 'kid', k.kid],
      ['DELETED', 'kid', k.kid],
    ]);
    // Replayed from history: everything since before the creates.
    const replay = ctx.watch(ctx.dir(), { resourceVersion: String(before) });
    expect(keyedEvents(await replay.take(9, 'replayed changes'))).toEqual([
      ['ADDED', 'a', k.a],
      ['ADDED', 'kid', k.kid],
      ['ADDED', 'mx', k.mx],
      ['ADDED', 'b', k.b],
      ...changes,
    ]);
  });

  test('with a predicate, ADDED on starting to match and DELETED on stopping carry the key', async () => {
    const k = keys();
    const { b } = await createAll();
    const web = { label: parseLabelSelector('app=web') };
    const r = ctx.watch(ctx.dir(), { resourceVersion: String(rvOf(b)), predicate: web });
    await relabelAt(k.kid, { app: 'web' });
    await relabelAt(k.a, { app: 'web' });
    await relabelAt(k.kid, { app: 'db' });
    await resizeAt(k.a, 5);
    await ctx.s.delete(k.a);
    const expected: [string, string, string][] = [
      ['ADDED', 'kid', k.kid],
      ['ADDED', 'a', k.a],
      ['DELETED', 'kid', k.kid],
      ['MODIFIED', 'a', k.a],
      ['DELETED', 'a', k.a],
    ];
    expect(keyedEvents(await r.take(5, 'predicate transitions'))).toEqual(expected);
    // The same transitions replayed from history, and the initial events of a filtered watch.
    const replay = ctx.watch(ctx.dir(), { resourceVersion: String(rvOf(b)), predicate: web });
    expect(keyedEvents(await replay.take(5, 'replayed predicate transitions'))).toEqual(expected);
    await relabelAt(k.mx, { app: 'web' });
    const db = ctx.watch(ctx.dir(), { resourceVersion: '', predicate: { label: parseLabelSelector('app!=web') } });
    expect(keyedEvents(await db.take(2, 'filtered initial events')).sort()).toEqual([
      ['ADDED', 'b', k.b],
      ['ADDED', 'kid', k.kid],
    ]);
  });
}

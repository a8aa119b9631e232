import { encodeContinue, type KubeObject, type ObjectList, parseFieldSelector, parseLabelSelector } from '@kapi/apimachinery';
import { expect } from 'vitest';
import type { ListOptions } from '../interfaces.ts';
import { MESSAGES } from '../storage-error.ts';
import { decodeToken, expectBadRequest, expectExpired, expectTooLarge, failure, rvOf, type SuiteContext, type Test } from './harness.ts';

const names = (l: ObjectList): string[] => l.items.map((o) => o.metadata.name ?? '');

function token(json: unknown): string {
  return Buffer.from(typeof json === 'string' ? json : JSON.stringify(json), 'utf8').toString('base64url');
}

export function listTests(ctx: SuiteContext, test: Test): void {
  const list = (key: string, o?: ListOptions) => ctx.s.list(key, o);

  /**
   * A list that may be served at any revision ≥ some bound: on a plain backend it is the latest state at the
   * current revision; on a cache it must at least be exactly the state at the revision it reports.
   */
  async function expectLatestOrConsistent(l: ObjectList, key: string, latest: KubeObject[], min: number, recursive = true): Promise<void> {
    expect(rvOf(l)).toBeGreaterThanOrEqual(min);
    if (!ctx.opts.cache) {
      expect(rvOf(l)).toBe(await ctx.rev());
      expect(l.items).toEqual(latest);
    } else {
      const exact = await list(key, { resourceVersion: String(rvOf(l)), resourceVersionMatch: 'Exact', recursive });
      expect(l.items).toEqual(exact.items);
    }
  }

  test('a consistent list reports the current revision, even on an empty prefix, and advances with unrelated writes', async () => {
    const emptyDir = ctx.dir(ctx.otherNs('empty'));
    const first = await list(emptyDir);
    expect(first.items).toEqual([]);
    expect(rvOf(first)).toBe(await ctx.rev());
    await ctx.create('x', { ns: ctx.otherNs('unrelated') });
    const second = await list(emptyDir, { resourceVersion: '' });
    expect(second.items).toEqual([]);
    expect(rvOf(second)).toBe(await ctx.rev());
    expect(rvOf(second)).toBeGreaterThan(rvOf(first));
    await ctx.create('a');
    await ctx.create('y', { ns: ctx.otherNs('unrelated') });
    const third = await list(ctx.dir());
    expect(rvOf(third)).toBe(await ctx.rev());
    expect(names(third)).toEqual(['a']);
  });

  test('returns every object under the prefix in key order, nested keys flattened, each at its own revision', async () => {
    const c = await ctx.create('c');
    const a = await ctx.create('a');
    const nested = await ctx.s.create(`${ctx.dir()}/m/x`, ctx.obj('mx'));
    const b = await ctx.create('b');
    await ctx.create('a', { ns: ctx.otherNs() });
    const l = await list(ctx.dir());
    expect(l.items).toEqual([a, b, c, nested]);
    expect(l.metadata.continue ?? '').toBe('');
    expect(l.metadata.remainingItemCount).toBeUndefined();
  });

  test('shows updated objects at their latest state and leaves deleted ones out', async () => {
    await ctx.createAll(['a', 'b', 'c']);
    const a2 = await ctx.resize('a', 2);
    await ctx.remove('b');
    const l = await list(ctx.dir());
    expect(l.items).toEqual([a2, await ctx.s.get(ctx.key('c'))]);
  });

  test('Exact returns the state at past revisions and echoes the revision', async () => {
    const a1 = await ctx.create('a');
    const b = await ctx.create('b');
    const a2 = await ctx.resize('a', 2);
    const del = await ctx.remove('b');
    const c = await ctx.create('c');
    const at = (rv: number) => list(ctx.dir(), { resourceVersion: String(rv), resourceVersionMatch: 'Exact' });
    const cases: [number, KubeObject[]][] = [
      [rvOf(a1), [a1]],
      [rvOf(b), [a1, b]],
      [rvOf(a2), [a2, b]],
      [rvOf(del), [a2]],
      [rvOf(c), [a2, c]],
    ];
    for (const [rv, items] of cases) {
      const l = await at(rv);
      expect(rvOf(l)).toBe(rv);
      expect(l.items).toEqual(items);
    }
  });

  test('Exact at a revision before the objects existed is an empty list at that revision', async () => {
    await ctx.create('x', { ns: ctx.otherNs() });
    const before = await ctx.rev();
    await ctx.createAll(['a', 'b']);
    const l = await list(ctx.dir(), { resourceVersion: String(before), resourceVersionMatch: 'Exact' });
    expect(l.items).toEqual([]);
    expect(rvOf(l)).toBe(before);
  });

  test('Exact below the compaction point is 410 Expired; the compaction point stays readable', async () => {
    const a1 = await ctx.create('a');
    const b = await ctx.create('b');
    const a2 = await ctx.resize('a', 2);
    const c = await ctx.create('c');
    await ctx.h.compact(rvOf(a2));
    for (const rv of [rvOf(a1), rvOf(b)]) {
      const e = await failure(
        () => list(ctx.dir(), { resourceVersion: String(rv), resourceVersionMatch: 'Exact' }),
        `Exact list at compacted ${rv}`,
      );
      expectExpired(e, MESSAGES.listExpired);
    }
    const atCompaction = await list(ctx.dir(), { resourceVersion: String(rvOf(a2)), resourceVersionMatch: 'Exact' });
    expect(atCompaction.items).toEqual([a2, b]);
    expect(rvOf(atCompaction)).toBe(rvOf(a2));
    const after = await list(ctx.dir(), { resourceVersion: String(rvOf(c)), resourceVersionMatch: 'Exact' });
    expect(after.items).toEqual([a2, b, c]);
  });

  test('Exact above the current revision is too large', async () => {
    await ctx.create('a');
    const current = await ctx.rev();
    const e = await failure(
      () => list(ctx.dir(), { resourceVersion: String(current + 1000), resourceVersionMatch: 'Exact' }),
      'Exact list in the future',
    );
    expectTooLarge(e);
  });

  test('NotOlderThan N at or below the current revision returns the latest state at a revision ≥ N', async () => {
    const a1 = await ctx.create('a');
    const a2 = await ctx.resize('a', 2);
    const b = await ctx.create('b');
    await ctx.create('x', { ns: ctx.otherNs() });
    const l = await list(ctx.dir(), { resourceVersion: String(rvOf(a1)), resourceVersionMatch: 'NotOlderThan' });
    await expectLatestOrConsistent(l, ctx.dir(), [a2, b], rvOf(a1));
    const atCurrent = await list(ctx.dir(), { resourceVersion: String(await ctx.rev()), resourceVersionMatch: 'NotOlderThan' });
    expect(atCurrent.items).toEqual([a2, b]);
    expect(rvOf(atCurrent)).toBeGreaterThanOrEqual(await ctx.rev());
  });

  test('NotOlderThan, or no match at all, above the current revision is too large', async () => {
    await ctx.create('a');
    const future = String((await ctx.rev()) + 1000);
    expectTooLarge(
      await failure(() => list(ctx.dir(), { resourceVersion: future, resourceVersionMatch: 'NotOlderThan' }), 'NotOlderThan list'),
    );
    expectTooLarge(await failure(() => list(ctx.dir(), { resourceVersion: future }), 'legacy list'));
  });

  test('legacy rule: no match + recursive + limit > 0 + RV > 0 reads exactly at RV', async () => {
    const a1 = await ctx.create('a');
    const b = await ctx.create('b');
    await ctx.resize('a', 2);
    await ctx.create('c');
    const l = await list(ctx.dir(), { resourceVersion: String(rvOf(b)), predicate: { limit: 10 } });
    expect(l.items).toEqual([a1, b]);
    expect(rvOf(l)).toBe(rvOf(b));
    const paged = await list(ctx.dir(), { resourceVersion: String(rvOf(b)), predicate: { limit: 1 } });
    expect(paged.items).toEqual([a1]);
    expect(rvOf(paged)).toBe(rvOf(b));
    expect(decodeToken(paged.metadata.continue ?? '', ctx.dir()).rv).toBe(rvOf(b));
  });

  test('legacy rule: no match without a limit treats RV as a lower bound (latest state)', async () => {
    await ctx.create('a');
    const b = await ctx.create('b');
    const a2 = await ctx.resize('a', 2);
    const c = await ctx.create('c');
    const l = await list(ctx.dir(), { resourceVersion: String(rvOf(b)) });
    await expectLatestOrConsistent(l, ctx.dir(), [a2, b, c], rvOf(b));
  });

  test('legacy rule: a non-recursive list with a limit treats RV as a lower bound', async () => {
    const a1 = await ctx.create('a');
    const a2 = await ctx.resize('a', 2);
    const l = await list(ctx.key('a'), { recursive: false, resourceVersion: String(rvOf(a1)), predicate: { limit: 1 } });
    await expectLatestOrConsistent(l, ctx.key('a'), [a2], rvOf(a1), false);
  });

  test('resourceVersion "0" returns a committed state: what an Exact read at its revision returns', async () => {
    await ctx.createAll(['a', 'b']);
    const a2 = await ctx.resize('a', 2);
    const l = await list(ctx.dir(), { resourceVersion: '0' });
    const exact = await list(ctx.dir(), { resourceVersion: String(rvOf(l)), resourceVersionMatch: 'Exact' });
    expect(l.items).toEqual(exact.items);
    if (!ctx.opts.cache) {
      expect(rvOf(l)).toBe(await ctx.rev());
      expect(l.items[0]).toEqual(a2);
    }
    const nto = await list(ctx.dir(), { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
    expect(nto.items.length).toBeLessThanOrEqual(2);
  });

  test('an unknown resourceVersionMatch is 400', async () => {
    await ctx.create('a');
    for (const rv of ['0', '1']) {
      const e = await failure(
        () => list(ctx.dir(), { resourceVersion: rv, resourceVersionMatch: 'Invalid' as never }),
        `list with resourceVersionMatch=Invalid, RV ${rv}`,
      );
      expectBadRequest(e);
    }
  });

  test('a malformed resourceVersion is 400 "invalid resource version"', async () => {
    await ctx.create('a');
    for (const rv of ['abc', '-5']) {
      expectBadRequest(await failure(() => list(ctx.dir(), { resourceVersion: rv }), `list with RV ${rv}`), 'invalid resource version');
      expectBadRequest(
        await failure(
          () => list(ctx.dir(), { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' }),
          `NotOlderThan list with RV ${rv}`,
        ),
        'invalid resource version',
      );
    }
  });

  test('limit + continue page through one snapshot while writes and deletes happen between pages', async () => {
    await ctx.createAll(['a', 'b', 'c', 'd', 'e']);
    const snapshot = await list(ctx.dir());
    const R = rvOf(snapshot);
    const p1 = await list(ctx.dir(), { predicate: { limit: 2 } });
    expect(p1.items).toEqual(snapshot.items.slice(0, 2));
    expect(rvOf(p1)).toBe(R);
    expect(p1.metadata.continue).toBeTruthy();
    expect(p1.metadata.remainingItemCount).toBe(3);

    await ctx.resize('c', 9);
    await ctx.remove('d');
    await ctx.create('f');
    await ctx.create('g');
    await ctx.remove('a');
    await ctx.resize('b', 8);
    await ctx.create('bb');

    const p2 = await list(ctx.dir(), { predicate: { limit: 2, continue: p1.metadata.continue } });
    expect(p2.items).toEqual(snapshot.items.slice(2, 4));
    expect(rvOf(p2)).toBe(R);
    expect(p2.metadata.continue).toBeTruthy();
    expect(p2.metadata.remainingItemCount).toBe(1);

    await ctx.remove('e');
    await ctx.create('h');

    const p3 = await list(ctx.dir(), { predicate: { limit: 2, continue: p2.metadata.continue } });
    expect(p3.items).toEqual(snapshot.items.slice(4));
    expect(rvOf(p3)).toBe(R);
    expect(p3.metadata.continue ?? '').toBe('');
    expect(p3.metadata.remainingItemCount).toBeUndefined();
  });

  test('paging with limit 1 visits each key of the snapshot once; keys created meanwhile are not included', async () => {
    await ctx.createAll(['test-0', 'test-1', 'test-2', 'test-3']);
    const seen: string[] = [];
    let cont: string | undefined;
    let calls = 0;
    do {
      calls++;
      const page = await list(ctx.dir(), { predicate: { limit: 1, continue: cont } });
      seen.push(...names(page));
      if (calls === 2) await ctx.create('test-5');
      cont = page.metadata.continue || undefined;
      if (calls > 10) break;
    } while (cont);
    expect(seen).toEqual(['test-0', 'test-1', 'test-2', 'test-3']);
    expect(calls).toBe(4);
  });

  test('the continue token is base64url JSON {v, rv, start} with the last key after the prefix plus NUL', async () => {
    await ctx.createAll(['a', 'b', 'c']);
    const p1 = await list(ctx.dir(), { predicate: { limit: 2 } });
    const t = p1.metadata.continue ?? '';
    expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
    const d = decodeToken(t, ctx.dir());
    expect(d.raw).toEqual({ v: 'meta.k8s.io/v1', rv: rvOf(p1), start: 'b\u0000' });
    expect(d.fromKey).toBe(`${ctx.key('b')}\u0000`);
    expect(d.rv).toBe(rvOf(p1));
  });

  test('remainingItemCount counts the keys after the page when there is no selector', async () => {
    await ctx.createAll(['a', 'b', 'c', 'd', 'e']);
    await ctx.s.create(`${ctx.dir()}/f/nested`, ctx.obj('fn'));
    const expectations: [number, number | undefined][] = [
      [1, 5],
      [4, 2],
      [5, 1],
      [6, undefined],
      [100, undefined],
    ];
    for (const [limit, remaining] of expectations) {
      const l = await list(ctx.dir(), { predicate: { limit } });
      expect(l.items.length, `limit ${limit}`).toBe(Math.min(limit, 6));
      expect(l.metadata.remainingItemCount, `remainingItemCount for limit ${limit}`).toBe(remaining);
      expect(!!l.metadata.continue, `continue for limit ${limit}`).toBe(remaining !== undefined);
    }
  });

  test('remainingItemCount is absent when a selector is set', async () => {
    await ctx.createAll(['a', 'b', 'c', 'd'], { labels: { app: 'web' } });
    const l = await list(ctx.dir(), { predicate: { limit: 1, label: parseLabelSelector('app=web') } });
    expect(names(l)).toEqual(['a']);
    expect(l.metadata.continue).toBeTruthy();
    expect(l.metadata.remainingItemCount).toBeUndefined();
    const f = await list(ctx.dir(), { predicate: { limit: 2, field: parseFieldSelector('metadata.name!=zz') } });
    expect(names(f)).toEqual(['a', 'b']);
    expect(f.metadata.remainingItemCount).toBeUndefined();
  });

  test('continue is set while keys remain in the range, even if none of them match', async () => {
    await ctx.create('a', { labels: { app: 'web' } });
    await ctx.createAll(['b', 'c', 'd']);
    const label = parseLabelSelector('app=web');
    const p1 = await list(ctx.dir(), { predicate: { limit: 1, label } });
    expect(names(p1)).toEqual(['a']);
    expect(p1.metadata.continue).toBeTruthy();
    const p2 = await list(ctx.dir(), { predicate: { limit: 1, label, continue: p1.metadata.continue } });
    expect(p2.items).toEqual([]);
    expect(p2.metadata.continue ?? '').toBe('');
    expect(rvOf(p2)).toBe(rvOf(p1));
  });

  test('with a selector and a limit the page is filled from further keys', async () => {
    const all = await ctx.createAll(Array.from({ length: 10 }, (_, i) => `k${String(i).padStart(2, '0')}`));
    for (const o of all) {
      const i = Number((o.metadata.name ?? '').slice(1));
      if (i % 2 === 0) await ctx.relabel(o.metadata.name ?? '', { app: 'web' });
    }
    const label = parseLabelSelector('app=web');
    const p1 = await list(ctx.dir(), { predicate: { limit: 3, label } });
    expect(names(p1)).toEqual(['k00', 'k02', 'k04']);
    expect(p1.metadata.continue).toBeTruthy();
    const p2 = await list(ctx.dir(), { predicate: { limit: 3, label, continue: p1.metadata.continue } });
    expect(names(p2)).toEqual(['k06', 'k08']);
    expect(p2.metadata.continue ?? '').toBe('');
  });

  test('a rare match at the end of a long range is found in one page, without continue', async () => {
    const n = 40;
    await ctx.createAll(Array.from({ length: n }, (_, i) => `pod-${String(i).padStart(3, '0')}`));
    const last = `pod-${String(n - 1).padStart(3, '0')}`;
    const l = await list(ctx.dir(), { predicate: { limit: 1, field: parseFieldSelector(`metadata.name=${last}`) } });
    expect(names(l)).toEqual([last]);
    expect(l.metadata.continue ?? '').toBe('');
    const mid = `pod-${String(n / 2).padStart(3, '0')}`;
    const m = await list(ctx.dir(), { predicate: { limit: 1, field: parseFieldSelector(`metadata.name=${mid}`) } });
    expect(names(m)).toEqual([mid]);
    expect(m.metadata.continue).toBeTruthy();
  });

  test('a label selector filters the items', async () => {
    await ctx.create('a', { labels: { app: 'web', tier: 'fe' } });
    await ctx.create('b', { labels: { app: 'db' } });
    await ctx.create('c');
    const sel = (s: string) => list(ctx.dir(), { predicate: { label: parseLabelSelector(s) } }).then(names);
    expect(await sel('app=web')).toEqual(['a']);
    expect(await sel('app!=web')).toEqual(['b', 'c']);
    expect(await sel('!app')).toEqual(['c']);
    expect(await sel('app,tier=fe')).toEqual(['a']);
    expect(await sel('')).toEqual(['a', 'b', 'c']);
  });

  test('a field selector on metadata.name / metadata.namespace filters the items', async () => {
    const other = ctx.otherNs();
    await ctx.createAll(['a', 'b']);
    const oa = await ctx.create('a', { ns: other });
    const f = (key: string, s: string) => list(key, { predicate: { field: parseFieldSelector(s) } }).then(names);
    expect(await f(ctx.dir(), 'metadata.name!=a')).toEqual(['b']);
    expect(await f(ctx.dir(), 'metadata.name=a')).toEqual(['a']);
    const byNs = await list(ctx.p, { predicate: { field: parseFieldSelector(`metadata.namespace=${other}`) } });
    expect(byNs.items).toEqual([oa]);
    const both = await list(ctx.p, { predicate: { field: parseFieldSelector(`metadata.name=a,metadata.namespace=${ctx.ns}`) } });
    expect(both.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual([`${ctx.ns}/a`]);
  });

  test('a continue token whose revision was compacted is 410 Expired carrying a fresh token (rv -1, same start)', async () => {
    await ctx.createAll(['a', 'b', 'c']);
    const p1 = await list(ctx.dir(), { predicate: { limit: 1 } });
    expect(names(p1)).toEqual(['a']);
    const c2 = await ctx.resize('c', 2);
    await ctx.h.compact(rvOf(c2));
    const e = await failure(
      () => list(ctx.dir(), { predicate: { limit: 1, continue: p1.metadata.continue } }),
      'list with a compacted continue token',
    );
    const st = expectExpired(e, MESSAGES.inconsistentContinue);
    const fresh = st.status.metadata.continue ?? '';
    expect(fresh).toBeTruthy();
    const d = decodeToken(fresh, ctx.dir());
    expect(d.rv).toBe(-1);
    expect(d.fromKey).toBe(decodeToken(p1.metadata.continue ?? '', ctx.dir()).fromKey);
    const p2 = await list(ctx.dir(), { predicate: { limit: 1, continue: fresh } });
    expect(names(p2)).toEqual(['b']);
    expect(rvOf(p2)).toBeGreaterThanOrEqual(rvOf(c2));
    expect(p2.metadata.continue).toBeTruthy();
    const p3 = await list(ctx.dir(), { predicate: { limit: 1, continue: p2.metadata.continue } });
    expect(p3.items).toEqual([c2]);
    expect(rvOf(p3)).toBe(rvOf(p2));
    expect(p3.metadata.continue ?? '').toBe('');
  });

  test('continue with a resourceVersion other than "" or "0" is 400; "0" is ignored', async () => {
    await ctx.createAll(['a', 'b']);
    const p1 = await list(ctx.dir(), { predicate: { limit: 1 } });
    const e = await failure(
      () => list(ctx.dir(), { resourceVersion: String(rvOf(p1)), predicate: { limit: 1, continue: p1.metadata.continue } }),
      'continue with a resourceVersion',
    );
    expectBadRequest(e, 'specifying resource version is not allowed when using continue');
    const p2 = await list(ctx.dir(), { resourceVersion: '0', predicate: { limit: 1, continue: p1.metadata.continue } });
    expect(names(p2)).toEqual(['b']);
    expect(rvOf(p2)).toBe(rvOf(p1));
  });

  test('malformed continue tokens are 400 "invalid continue token"', async () => {
    const a = await ctx.create('a');
    const rv = rvOf(a);
    const bad = [
      'not base64 !!',
      token('this is not json'),
      token({ v: 'meta.k8s.io/v2', rv, start: 'a\u0000' }),
      token({ v: 'meta.k8s.io/v1', rv: 0, start: 'a\u0000' }),
      token({ v: 'meta.k8s.io/v1', rv, start: '' }),
      token({ v: 'meta.k8s.io/v1', rv, start: '../../secrets/x' }),
    ];
    for (const t of bad) {
      const e = await failure(() => list(ctx.dir(), { predicate: { limit: 1, continue: t } }), `list with continue ${t}`);
      expectBadRequest(e, 'invalid continue token');
    }
  });

  test('a continue token pinned at a past revision reads that revision', async () => {
    const [, b, c] = await ctx.createAll(['a', 'b', 'c']);
    await ctx.resize('b', 2);
    await ctx.remove('c');
    await ctx.create('d');
    const t = encodeContinue(`${ctx.key('a')}\u0000`, `${ctx.dir()}/`, rvOf(c));
    const l = await list(ctx.dir(), { predicate: { continue: t } });
    expect(l.items).toEqual([b, c]);
    expect(rvOf(l)).toBe(rvOf(c));
    const paged = await list(ctx.dir(), { predicate: { limit: 1, continue: t } });
    expect(paged.items).toEqual([b]);
    expect(rvOf(paged)).toBe(rvOf(c));
    expect(paged.metadata.continue).toBeTruthy();
  });

  test('a continue token with rv -1 reads the latest state at the current revision', async () => {
    await ctx.createAll(['a', 'b', 'c']);
    const b2 = await ctx.resize('b', 2);
    await ctx.create('x', { ns: ctx.otherNs() });
    const t = encodeContinue(`${ctx.key('a')}\u0000`, `${ctx.dir()}/`, -1);
    const l = await list(ctx.dir(), { predicate: { continue: t } });
    expect(l.items).toEqual([b2, await ctx.s.get(ctx.key('c'))]);
    expect(rvOf(l)).toBe(await ctx.rev());
  });

  test('a limit at or above the number of keys returns everything without continue', async () => {
    const all = await ctx.createAll(['a', 'b', 'c']);
    for (const limit of [3, 4, 500]) {
      const l = await list(ctx.dir(), { predicate: { limit } });
      expect(l.items).toEqual(all);
      expect(l.metadata.continue ?? '').toBe('');
      expect(l.metadata.remainingItemCount).toBeUndefined();
    }
  });

  test('Exact with a limit pages at that revision and the continue token keeps reading it', async () => {
    const [a, b] = await ctx.createAll(['a', 'b']);
    await ctx.createAll(['c', 'd']);
    await ctx.resize('a', 3);
    const p1 = await list(ctx.dir(), { resourceVersion: String(rvOf(b)), resourceVersionMatch: 'Exact', predicate: { limit: 1 } });
    expect(p1.items).toEqual([a]);
    expect(rvOf(p1)).toBe(rvOf(b));
    expect(p1.metadata.remainingItemCount).toBe(1);
    expect(decodeToken(p1.metadata.continue ?? '', ctx.dir()).rv).toBe(rvOf(b));
    const p2 = await list(ctx.dir(), { predicate: { limit: 1, continue: p1.metadata.continue } });
    expect(p2.items).toEqual([b]);
    expect(rvOf(p2)).toBe(rvOf(b));
    expect(p2.metadata.continue ?? '').toBe('');
  });

  test('a non-recursive list of an exact key returns that object or an empty list', async () => {
    const a1 = await ctx.create('a');
    await ctx.create('ab');
    await ctx.s.create(`${ctx.key('a')}/child`, ctx.obj('child'));
    const a2 = await ctx.resize('a', 2);
    const one = await list(ctx.key('a'), { recursive: false });
    expect(one.items).toEqual([a2]);
    expect(rvOf(one)).toBe(await ctx.rev());
    const missing = await list(ctx.key('missing'), { recursive: false });
    expect(missing.items).toEqual([]);
    expect(rvOf(missing)).toBe(await ctx.rev());
    const filtered = await list(ctx.key('a'), { recursive: false, predicate: { field: parseFieldSelector('metadata.name!=a') } });
    expect(filtered.items).toEqual([]);
    const dirItself = await list(ctx.dir(), { recursive: false });
    expect(dirItself.items).toEqual([]);
    const past = await list(ctx.key('a'), { recursive: false, resourceVersion: String(rvOf(a1)), resourceVersionMatch: 'Exact' });
    expect(past.items).toEqual([a1]);
  });

  test('a recursive list of /x/foo does not return /x/foobar (the prefix gets a trailing slash)', async () => {
    await ctx.create('foo');
    await ctx.create('foobar');
    const child = await ctx.s.create(`${ctx.key('foo')}/x`, ctx.obj('foo-x'));
    expect((await list(ctx.key('foo'))).items).toEqual([child]);
    expect((await list(`${ctx.key('foo')}/`)).items).toEqual([child]);
    expect((await list(ctx.key('foobar'))).items).toEqual([]);
    expect(names(await list(`${ctx.dir()}/`))).toEqual(['foo', 'foo-x', 'foobar']);
  });
}

import {
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeObject,
  parseFieldSelector,
  parseLabelSelector,
  type Status,
  type WatchEvent,
} from '@kapi/apimachinery';
import { expect } from 'vitest';
import { type Storage, supports, type WatchProgressRequester } from '../interfaces.ts';
import { MESSAGES } from '../storage-error.ts';
import { brief, expectBadRequest, expectBookmarkShape, rvOf, type SuiteContext, summarize, type Test, within, withRV } from './harness.ts';

type Expected = { type: WatchEvent['type']; object: KubeObject };

/** The object metadata of a non-ERROR event (an ERROR's Status has list metadata). */
const meta = (e: WatchEvent | undefined): KubeObject['metadata'] => (e?.object as KubeObject | undefined)?.metadata ?? {};

const byName = (a: WatchEvent, b: WatchEvent) => String(meta(a).name).localeCompare(String(meta(b).name));

const objects = (events: readonly WatchEvent[]) => events.map((e) => e.object);

function expectEvents(actual: readonly WatchEvent[], expected: readonly Expected[]): void {
  expect(brief(actual)).toEqual(brief(expected as WatchEvent[]));
  expect(actual.map((e) => ({ type: e.type, object: e.object }))).toEqual(expected);
}

export function watchTests(ctx: SuiteContext, test: Test): void {
  const sentinelName = 'zz-sentinel';
  /** Creates the sentinel object in this test's directory. */
  const sentinel = (labels?: Record<string, string>) => ctx.create(sentinelName, labels ? { labels } : {});
  const from = async () => String(await ctx.rev());

  test('from "" and "0": ADDED for every existing object first, then the changes', async () => {
    const [a, b] = await ctx.createAll(['a', 'b']);
    const nested = await ctx.s.create(`${ctx.dir()}/n/x`, ctx.obj('nx'));
    await ctx.create('x', { ns: ctx.otherNs() });
    const readers = [ctx.watch(ctx.dir(), { resourceVersion: '' }), ctx.watch(ctx.dir(), { resourceVersion: '0' }), ctx.watch(ctx.dir())];
    for (const r of readers) {
      const initial = (await r.take(3, 'initial ADDED events')).sort(byName);
      expect(initial.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
      expect(objects(initial)).toEqual([a, b, nested]);
    }
    const a2 = await ctx.resize('a', 2);
    const c = await ctx.create('c');
    const gone = await ctx.remove('b');
    for (const r of readers) {
      expectEvents(await r.take(3, 'changes after the initial events'), [
        { type: 'MODIFIED', object: a2 },
        { type: 'ADDED', object: c },
        { type: 'DELETED', object: gone },
      ]);
    }
  });

  test('from N: every change after N, in revision order, exactly once', async () => {
    await ctx.create('a');
    await ctx.create('b');
    const n = await ctx.resize('a', 2);
    const r = ctx.watch(ctx.dir(), { resourceVersion: String(rvOf(n)) });
    const expected: Expected[] = [];
    const pending = [
      ctx.create('c').then((o) => ({ type: 'ADDED' as const, object: o })),
      ctx.create('d').then((o) => ({ type: 'ADDED' as const, object: o })),
      ctx.resize('b', 5).then((o) => ({ type: 'MODIFIED' as const, object: o })),
    ];
    expected.push(...(await Promise.all(pending)));
    await ctx.create('x', { ns: ctx.otherNs() });
    expected.push({ type: 'DELETED', object: await ctx.remove('c') });
    expected.push({ type: 'MODIFIED', object: await ctx.relabel('a', { v: '3' }) });
    expected.push({ type: 'ADDED', object: await ctx.create('c') });
    expected.push({ type: 'ADDED', object: await sentinel() });
    expected.sort((x, y) => rvOf(x.object) - rvOf(y.object));
    expectEvents(await r.untilName(sentinelName), expected);
  });

  test('from the revision of the last write: only later changes, no replay', async () => {
    const a = await ctx.create('a');
    const r = ctx.watch(ctx.dir(), { resourceVersion: a.metadata.resourceVersion });
    const a2 = await ctx.resize('a', 2);
    expectEvents([await r.next()], [{ type: 'MODIFIED', object: a2 }]);
  });

  test('a delete arrives as DELETED carrying the last state at the deletion revision', async () => {
    const a = await ctx.create('a', { labels: { app: 'web' } });
    const r = ctx.watch(ctx.key('a'), { resourceVersion: a.metadata.resourceVersion, recursive: false });
    const gone = await ctx.remove('a');
    const ev = await r.next('DELETED');
    expect(ev.type).toBe('DELETED');
    expect(ev.object).toEqual(withRV(a, rvOf(gone)));
    expect(rvOf(ev.object)).toBeGreaterThan(rvOf(a));
  });

  test('objects written by guaranteedUpdate arrive as ADDED (created under ignoreNotFound) then MODIFIED', async () => {
    const r = ctx.watch(ctx.dir(), { resourceVersion: await from() });
    const created = await ctx.s.guaranteedUpdate(ctx.key('a'), () => ctx.obj('a'), { ignoreNotFound: true });
    const updated = await ctx.resize('a', 4);
    expectEvents(await r.take(2), [
      { type: 'ADDED', object: created },
      { type: 'MODIFIED', object: updated },
    ]);
  });

  test('from a compacted N: one ERROR event with a 410 Expired Status, then the stream ends', async () => {
    const a = await ctx.create('a');
    const n = rvOf(a);
    const b = await ctx.create('b');
    const c = await ctx.create('c');
    const a2 = await ctx.resize('a', 2);
    await ctx.h.compact(rvOf(a2));
    const r = ctx.watch(ctx.dir(), { resourceVersion: String(n) });
    const first = await r.next('the ERROR event');
    if (ctx.opts.cache && first.type !== 'ERROR') {
      // A cache may still serve this from its own history: then it must be exactly the history.
      const rest = await r.take(2);
      expectEvents(
        [first, ...rest],
        [
          { type: 'ADDED', object: b },
          { type: 'ADDED', object: c },
          { type: 'MODIFIED', object: a2 },
        ],
      );
      return;
    }
    expect(first.type, `got ${summarize([first])}`).toBe('ERROR');
    const st = first.object as Status;
    expect(st.kind).toBe('Status');
    expect(st.status).toBe('Failure');
    expect(st.code).toBe(410);
    expect(st.reason).toBe('Expired');
    if (!ctx.opts.cache) expect(st.message).toBe(MESSAGES.watchExpired);
    expect(await r.end('the end of the stream after ERROR')).toEqual([]);
  });

  test('from the compaction point itself, and from "0" after a compaction, the watch works', async () => {
    await ctx.create('a');
    const b = await ctx.create('b');
    const a2 = await ctx.resize('a', 2);
    await ctx.h.compact(rvOf(a2));
    const fromZero = ctx.watch(ctx.dir(), { resourceVersion: '0' });
    const fromCompaction = ctx.watch(ctx.dir(), { resourceVersion: String(rvOf(a2)) });
    const initial = (await fromZero.take(2)).sort(byName);
    expectEvents(initial, [
      { type: 'ADDED', object: a2 },
      { type: 'ADDED', object: b },
    ]);
    const c = await ctx.create('c');
    expectEvents([await fromZero.next()], [{ type: 'ADDED', object: c }]);
    expectEvents([await fromCompaction.next()], [{ type: 'ADDED', object: c }]);
  });

  test('a predicate: starting to match is ADDED, stopping is DELETED with the old object at the new revision', async () => {
    await ctx.create('a', { labels: { app: 'db' } });
    const r = ctx.watch(ctx.dir(), { resourceVersion: await from(), predicate: { label: parseLabelSelector('app=web') } });
    const expected: Expected[] = [];
    const a1 = await ctx.relabel('a', { app: 'web' });
    expected.push({ type: 'ADDED', object: a1 });
    const a2 = await ctx.resize('a', 5);
    expected.push({ type: 'MODIFIED', object: a2 });
    const a3 = await ctx.relabel('a', { app: 'db' });
    expected.push({ type: 'DELETED', object: withRV(a2, rvOf(a3)) });
    await ctx.resize('a', 6);
    await ctx.create('b', { labels: { app: 'db' } });
    const a5 = await ctx.relabel('a', { app: 'web' });
    expected.push({ type: 'ADDED', object: a5 });
    const gone = await ctx.remove('a');
    expected.push({ type: 'DELETED', object: withRV(a5, rvOf(gone)) });
    await ctx.remove('b');
    expected.push({ type: 'ADDED', object: await sentinel({ app: 'web' }) });
    expectEvents(await r.untilName(sentinelName), expected);
  });

  test('a predicate: initial events include only matching objects', async () => {
    const a = await ctx.create('a', { labels: { app: 'web' } });
    await ctx.create('b', { labels: { app: 'db' } });
    const c = await ctx.create('c', { labels: { app: 'web' } });
    const r = ctx.watch(ctx.dir(), { resourceVersion: '', predicate: { label: parseLabelSelector('app=web') } });
    const initial = (await r.take(2)).sort(byName);
    expectEvents(initial, [
      { type: 'ADDED', object: a },
      { type: 'ADDED', object: c },
    ]);
    const s = await sentinel({ app: 'web' });
    expectEvents(await r.untilName(sentinelName), [{ type: 'ADDED', object: s }]);
    const byField = ctx.watch(ctx.dir(), { resourceVersion: '', predicate: { field: parseFieldSelector('metadata.name=c') } });
    expectEvents([await byField.next()], [{ type: 'ADDED', object: c }]);
  });

  test('sendInitialEvents with bookmarks: ADDED for all, then a BOOKMARK marking the end of initial events', async () => {
    const items = await ctx.createAll(['a', 'b', 'c']);
    const x = await ctx.create('x', { ns: ctx.otherNs() });
    const r = ctx.watch(ctx.dir(), { resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true }, true);
    const events = await r.until(
      (e) => e.type === 'BOOKMARK' && meta(e).annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true',
      'the initial-events-end BOOKMARK',
    );
    const added = events.filter((e) => e.type !== 'BOOKMARK').sort(byName);
    if (!ctx.opts.cache) expect(events.length, `events: ${summarize(events)}`).toBe(4);
    expectEvents(
      added,
      items.map((o) => ({ type: 'ADDED' as const, object: o })),
    );
    const bm = events[events.length - 1] as WatchEvent;
    expectBookmarkShape(bm, true);
    expect(meta(bm).annotations).toEqual({ [INITIAL_EVENTS_END_ANNOTATION]: 'true' });
    const bmRV = rvOf(bm.object);
    expect(bmRV).toBeGreaterThanOrEqual(Math.max(...items.map(rvOf)));
    if (ctx.opts.cache) expect(bmRV).toBeGreaterThanOrEqual(rvOf(x));
    else expect(bmRV).toBe(rvOf(x));
    const a2 = await ctx.resize('a', 2);
    const next = await r.until((e) => e.type !== 'BOOKMARK', 'the change after the initial events');
    expectEvents(
      next.filter((e) => e.type !== 'BOOKMARK'),
      [{ type: 'MODIFIED', object: a2 }],
    );
    expect(rvOf(a2)).toBeGreaterThan(bmRV);
  });

  test('sendInitialEvents without allowWatchBookmarks: the initial ADDED events and no BOOKMARK', async () => {
    const items = await ctx.createAll(['a', 'b']);
    const r = ctx.watch(ctx.dir(), { resourceVersion: '', sendInitialEvents: true });
    const initial = (await r.take(2)).sort(byName);
    expectEvents(
      initial,
      items.map((o) => ({ type: 'ADDED' as const, object: o })),
    );
    await ctx.h.elapse(ctx.opts.progressIntervalMs);
    const s = await sentinel();
    expectEvents(await r.untilName(sentinelName), [{ type: 'ADDED', object: s }]);
  });

  test('sendInitialEvents=false: no initial events, only changes after the watch started', async () => {
    await ctx.createAll(['a', 'b']);
    const start = await ctx.rev();
    const r = ctx.watch(ctx.dir(), { resourceVersion: '', sendInitialEvents: false });
    let first: WatchEvent | undefined;
    for (let i = 0; i < 5 && !first; i++) {
      await ctx.create(`later-${i}`);
      first = await r.nextWithin(ctx.opts.eventTimeoutMs / 5);
    }
    expect(first, 'an event for a write made after the watch started').toBeDefined();
    expect(first?.type).toBe('ADDED');
    expect(meta(first).name).toMatch(/^later-/);
    expect(rvOf(first?.object)).toBeGreaterThan(start);
    await sentinel();
    for (const e of await r.untilName(sentinelName)) expect(meta(e).name).toMatch(/^(later-|zz-sentinel)/);
  });

  test('progressNotify: an idle watch gets a BOOKMARK carrying the latest revision', async () => {
    const a = await ctx.create('a');
    const r = ctx.watch(ctx.dir(), { resourceVersion: a.metadata.resourceVersion, progressNotify: true, allowWatchBookmarks: true }, true);
    const x = await ctx.create('x', { ns: ctx.otherNs() });
    await ctx.h.elapse(ctx.opts.progressIntervalMs);
    const events = await r.until((e) => e.type === 'BOOKMARK', 'a progress BOOKMARK');
    expect(events.length, `events: ${summarize(events)}`).toBe(1);
    const bm = events[0] as WatchEvent;
    expectBookmarkShape(bm);
    if (ctx.opts.cache) expect(rvOf(bm.object)).toBeGreaterThanOrEqual(rvOf(a));
    else expect(rvOf(bm.object)).toBe(rvOf(x));
    expect(rvOf(bm.object)).toBeLessThanOrEqual(await ctx.rev());
  });

  /** The storage's requestWatchProgress, or undefined (after checking it is absent) when the backend does not offer it. */
  const progressRequester = (): (Storage & WatchProgressRequester) | undefined => {
    const s = ctx.s;
    expect(supports(s, 'requestWatchProgress'), 'whether the storage offers requestWatchProgress').toBe(ctx.opts.progressRequests);
    return ctx.opts.progressRequests && supports(s, 'requestWatchProgress') ? s : undefined;
  };

  test('requestWatchProgress: a progressNotify watch gets every event, then promptly a BOOKMARK at or above the revision asked at', async () => {
    const s = progressRequester();
    if (!s) return;
    const start = await ctx.rev();
    const r = ctx.watch(ctx.dir(), { resourceVersion: String(start), progressNotify: true, allowWatchBookmarks: true }, true);
    const writes: Expected[] = [];
    writes.push({ type: 'ADDED', object: await ctx.create('a') });
    await ctx.create('x', { ns: ctx.otherNs() });
    writes.push({ type: 'MODIFIED', object: await ctx.resize('a', 2) });
    writes.push({ type: 'ADDED', object: await ctx.create('b') });
    // The last write is outside the watched range: the watch's own events end below the revision asked at.
    await ctx.create('y', { ns: ctx.otherNs() });
    const asked = await ctx.rev();
    // No elapse(): the periodic progress interval need not pass for this BOOKMARK.
    await s.requestWatchProgress();
    if (ctx.opts.cache) {
      // A cache keeps backend bookmarks to itself and sends its own on its own schedule; the events must all arrive.
      writes.push({ type: 'ADDED', object: await sentinel() });
      expectEvents(
        (await r.untilName(sentinelName)).filter((e) => e.type !== 'BOOKMARK'),
        writes,
      );
      return;
    }
    const events = await r.until((e) => e.type === 'BOOKMARK' && rvOf(e.object) >= asked, `a BOOKMARK at or above ${asked}`);
    expectEvents(
      events.filter((e) => e.type !== 'BOOKMARK'),
      writes,
    );
    const bm = events[events.length - 1] as WatchEvent;
    expectBookmarkShape(bm);
    expect(rvOf(bm.object)).toBeLessThanOrEqual(await ctx.rev());
    let last = start;
    for (const e of events) {
      const rv = rvOf(e.object);
      expect(rv, `revisions go back: ${summarize(events)}`).toBeGreaterThanOrEqual(last);
      last = rv;
    }
  });

  test('requestWatchProgress: a watch that did not ask for progressNotify gets no BOOKMARK from it', async () => {
    const s = progressRequester();
    if (!s) return;
    const start = String(await ctx.rev());
    const quiet = ctx.watch(ctx.dir(), { resourceVersion: start, allowWatchBookmarks: true }, !ctx.opts.cache);
    const notified = ctx.watch(ctx.dir(), { resourceVersion: start, allowWatchBookmarks: true, progressNotify: true }, true);
    const a = await ctx.create('a');
    const asked = await ctx.rev();
    await s.requestWatchProgress();
    // Once the watch that asked has its BOOKMARK, the request has been served.
    if (!ctx.opts.cache) await notified.until((e) => e.type === 'BOOKMARK' && rvOf(e.object) >= asked, 'the requested BOOKMARK');
    const end = await sentinel();
    expectEvents(await quiet.untilName(sentinelName), [
      { type: 'ADDED', object: a },
      { type: 'ADDED', object: end },
    ]);
  });

  test('no BOOKMARK reaches a watcher that does not allow bookmarks', async () => {
    const a = await ctx.create('a');
    const r = ctx.watch(ctx.dir(), { resourceVersion: a.metadata.resourceVersion }, !ctx.opts.cache);
    await ctx.h.elapse(ctx.opts.progressIntervalMs * 2);
    const b = await ctx.create('b');
    await ctx.h.elapse(ctx.opts.progressIntervalMs);
    const s = await sentinel();
    expectEvents(await r.untilName(sentinelName), [
      { type: 'ADDED', object: b },
      { type: 'ADDED', object: s },
    ]);
  });

  test('BOOKMARK revisions never go back and every other event has a revision above all before it', async () => {
    const start = await ctx.rev();
    const r = ctx.watch(ctx.dir(), { resourceVersion: String(start), allowWatchBookmarks: true, progressNotify: true }, true);
    const writes: Expected[] = [];
    for (let i = 0; i < 4; i++) {
      writes.push({ type: 'ADDED', object: await ctx.create(`k${i}`) });
      writes.push({ type: 'MODIFIED', object: await ctx.resize(`k${i}`, i + 10) });
      await ctx.create(`y${i}`, { ns: ctx.otherNs() });
      await ctx.h.elapse(ctx.opts.progressIntervalMs);
    }
    writes.push({ type: 'ADDED', object: await sentinel() });
    const events = await r.untilName(sentinelName);
    let last = start;
    for (const e of events) {
      const rv = rvOf(e.object);
      if (e.type === 'BOOKMARK') expect(rv, `bookmark after ${last}: ${summarize(events)}`).toBeGreaterThanOrEqual(last);
      else expect(rv, `event after ${last}: ${summarize(events)}`).toBeGreaterThan(last);
      last = rv;
    }
    expectEvents(
      events.filter((e) => e.type !== 'BOOKMARK'),
      writes,
    );
  });

  test('a watcher that never reads blocks neither writers nor other watchers', async () => {
    const start = await from();
    const stalled = ctx.watch(ctx.dir(), { resourceVersion: start });
    const live = ctx.watch(ctx.dir(), { resourceVersion: start });
    const n = 1000;
    const name = (i: number) => `o-${String(i).padStart(4, '0')}`;
    const first = await ctx.create(name(0));
    expectEvents([await stalled.next()], [{ type: 'ADDED', object: first }]);
    await within(
      (async () => {
        for (let i = 1; i < n; i++) await ctx.create(name(i));
      })(),
      ctx.opts.eventTimeoutMs * 3,
      `${n} creates with a stalled watcher`,
    );
    const events = await live.take(n);
    expect(events.map((e) => meta(e).name)).toEqual(Array.from({ length: n }, (_, i) => name(i)));
    expect(events.every((e) => e.type === 'ADDED')).toBe(true);
    for (let i = 1; i < n; i++) expect(rvOf(events[i]?.object)).toBeGreaterThan(rvOf(events[i - 1]?.object));
  });

  test('every watcher gets its own complete stream from its own start revision', async () => {
    const a = await ctx.create('a');
    const w1 = ctx.watch(ctx.dir(), { resourceVersion: a.metadata.resourceVersion });
    const b = await ctx.create('b');
    const w2 = ctx.watch(ctx.dir(), { resourceVersion: b.metadata.resourceVersion });
    const w3 = ctx.watch(ctx.dir(), { resourceVersion: '0' });
    const c = await ctx.create('c');
    expectEvents(await w1.take(2), [
      { type: 'ADDED', object: b },
      { type: 'ADDED', object: c },
    ]);
    expectEvents(await w2.take(1), [{ type: 'ADDED', object: c }]);
    const all = (await w3.take(3)).sort(byName);
    expectEvents(
      all,
      [a, b, c].map((o) => ({ type: 'ADDED' as const, object: o })),
    );
  });

  test('stop() ends the iterator without an error, also while a read is pending', async () => {
    const r = ctx.watch(ctx.dir(), { resourceVersion: await from() });
    const pending = within(r.end('end after stop()'), ctx.opts.eventTimeoutMs, 'the watch to end after stop()');
    r.stop();
    expect(await pending).toEqual([]);
    r.stop();

    const w = ctx.s.watch(ctx.dir(), { resourceVersion: await from() });
    const got: WatchEvent[] = [];
    const loop = (async () => {
      for await (const e of w) {
        if (e.type === 'BOOKMARK') continue;
        got.push(e);
        w.stop();
      }
    })();
    const a = await ctx.create('a');
    await within(loop, ctx.opts.eventTimeoutMs, 'a for-await loop to end after stop()');
    await ctx.create('b');
    expect(got.map((e) => e.object)).toEqual([a]);
  });

  test('aborting the signal ends the watch; an already-aborted signal ends it at once', async () => {
    const ac = new AbortController();
    const r = ctx.watch(ctx.dir(), { resourceVersion: await from(), signal: ac.signal });
    const a = await ctx.create('a');
    expectEvents([await r.next()], [{ type: 'ADDED', object: a }]);
    ac.abort();
    await within(r.end(), ctx.opts.eventTimeoutMs, 'the watch to end after abort');

    const pre = new AbortController();
    pre.abort();
    const r2 = ctx.watch(ctx.dir(), { resourceVersion: '0', signal: pre.signal });
    expect(await within(r2.end(), ctx.opts.eventTimeoutMs, 'a pre-aborted watch to end')).toEqual([]);
  });

  test('a non-recursive watch of one key sees only that key', async () => {
    await ctx.create('ab');
    await ctx.s.create(`${ctx.key('a')}/child`, ctx.obj('child'));
    const a = await ctx.create('a');
    const fromNow = ctx.watch(ctx.key('a'), { recursive: false, resourceVersion: a.metadata.resourceVersion });
    const fromEmpty = ctx.watch(ctx.key('a'), { recursive: false, resourceVersion: '' });
    expectEvents([await fromEmpty.next()], [{ type: 'ADDED', object: a }]);
    await ctx.resize('ab', 3);
    const a2 = await ctx.resize('a', 2);
    await ctx.s.create(`${ctx.key('a')}/child2`, ctx.obj('child2'));
    await ctx.create('b');
    const gone = await ctx.remove('a');
    const again = await ctx.create('a');
    const expected: Expected[] = [
      { type: 'MODIFIED', object: a2 },
      { type: 'DELETED', object: gone },
      { type: 'ADDED', object: again },
    ];
    expectEvents(await fromNow.take(3), expected);
    expectEvents(await fromEmpty.take(3), expected);
  });

  test('watching /x/foo does not see /x/foobar (nor /x/foo itself)', async () => {
    const r = ctx.watch(ctx.key('foo'), { resourceVersion: await from() });
    await ctx.create('foobar');
    await ctx.create('foo');
    const child = await ctx.s.create(`${ctx.key('foo')}/x`, ctx.obj('foo-x'));
    await ctx.s.create(`${ctx.key('foobar')}/x`, ctx.obj('foobar-x'));
    const s = await ctx.s.create(`${ctx.key('foo')}/${sentinelName}`, ctx.obj(sentinelName));
    expectEvents(await r.untilName(sentinelName), [
      { type: 'ADDED', object: child },
      { type: 'ADDED', object: s },
    ]);
  });

  test('a malformed resourceVersion is 400', async () => {
    for (const rv of ['abc', '-1']) {
      expectBadRequest(await ctx.watchFailure(ctx.dir(), { resourceVersion: rv }), 'invalid resource version');
    }
  });
}

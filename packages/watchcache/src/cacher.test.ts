import {
  FakeClock,
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeObject,
  type ObjectList,
  parseFieldSelector,
  parseLabelSelector,
  type Status,
  toStatusError,
  type WatchEvent,
} from '@kapi/apimachinery';
import {
  type Compactable,
  type CreateOptions,
  type DeleteOptions,
  defaultAttrs,
  type GetOptions,
  type ListOptions,
  MemoryStorage,
  type Storage,
  storageErrors,
  storageKeyOf,
  supports,
  type UpdateFunc,
  type UpdateOptions,
  type Watch,
  type WatchOptions,
  WatchQueue,
} from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { Cacher, type CacherOptions } from './cacher.ts';
import { encodedEvent, onEncode } from './encoded-event.ts';

const PREFIX = '/registry/widgets';
const key = (name: string, ns = 'default') => `${PREFIX}/${ns}/${name}`;
const widget = (name: string, o: { ns?: string; labels?: Record<string, string>; node?: string } = {}): KubeObject => ({
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace: o.ns ?? 'default', ...(o.labels ? { labels: o.labels } : {}) },
  spec: { size: 1, ...(o.node ? { nodeName: o.node } : {}) },
});
const rvOf = (o: { metadata: { resourceVersion?: string } }) => Number(o.metadata.resourceVersion);
const names = (l: ObjectList) => l.items.map((o) => o.metadata.name);
/** The name of a non-ERROR event's object. */
const nameOf = (e: WatchEvent | undefined) => (e?.type === 'ERROR' ? undefined : e?.object.metadata.name);

/** Lets promise continuations and the reflector's loop run. */
async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

/** Flushes until `cond` holds (advancing the fake clock by `stepMs` each round, if given). */
async function until(cond: () => boolean, clock?: FakeClock, stepMs = 0): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    if (clock && stepMs) clock.advance(stepMs);
    await flush(1);
  }
  throw new Error('condition not reached');
}

/** Reads a watch in the background into `events`. */
function collect(w: Watch): { events: WatchEvent[]; done: () => boolean } {
  const events: WatchEvent[] = [];
  let done = false;
  void (async () => {
    for await (const e of w) events.push(e);
    done = true;
  })();
  return { events, done: () => done };
}

async function failureOf(p: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

/**
 * MemoryStorage behind switches: watches the test can break, a backend that refuses watches while `down`, lists that
 * wait for `listGate`, and requestWatchProgress that can be hidden.
 */
class SwitchableStorage implements Storage, Compactable {
  readonly inner: MemoryStorage;
  down = false;
  listGate: Promise<void> | undefined;
  /** Runs after a list was read, before it is returned (a write racing the cache's list). */
  afterList: (() => Promise<unknown>) | undefined;
  readonly watches: Watch[] = [];
  readonly updateCalls: UpdateOptions[] = [];
  requestWatchProgress?: () => Promise<void>;
  /** Whether the progress it forwards is prompt (MemoryStorage's is; a test may say otherwise). */
  promptWatchProgress?: boolean;

  constructor(inner: MemoryStorage, progress = true) {
    this.inner = inner;
    if (progress) {
      this.requestWatchProgress = () => inner.requestWatchProgress();
      this.promptWatchProgress = inner.promptWatchProgress;
    }
  }
  create(k: string, o: KubeObject, opts?: CreateOptions) {
    return this.inner.create(k, o, opts);
  }
  get(k: string, opts?: GetOptions) {
    return this.inner.get(k, opts);
  }
  async list(k: string, opts?: ListOptions) {
    await this.listGate;
    const l = await this.inner.list(k, opts);
    await this.afterList?.();
    return l;
  }
  guaranteedUpdate(k: string, fn: UpdateFunc, opts: UpdateOptions = {}) {
    this.updateCalls.push(opts);
    return this.inner.guaranteedUpdate(k, fn, opts);
  }
  delete(k: string, opts?: DeleteOptions) {
    return this.inner.delete(k, opts);
  }
  watch(k: string, opts?: WatchOptions): Watch {
    if (this.down) {
      const q = new WatchQueue();
      q.fail(storageErrors.unreachable(k).toStatusError().status);
      return q;
    }
    const w = this.inner.watch(k, opts);
    this.watches.push(w);
    return w;
  }
  /** Ends every open backend watch (as a dropped connection would). */
  breakWatches(): void {
    for (const w of this.watches.splice(0)) w.stop();
  }
  count(k: string) {
    return this.inner.count(k);
  }
  currentResourceVersion() {
    return this.inner.currentResourceVersion();
  }
  compact(rev: number) {
    return this.inner.compact(rev);
  }
  close() {
    return this.inner.close();
  }
}

const open: Cacher[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

interface Setup {
  clock: FakeClock;
  inner: MemoryStorage;
  backend: SwitchableStorage;
  cacher: Cacher;
}

/** A Cacher on a fake clock over a switchable MemoryStorage (whose own clock stands still unless `sharedClock`). */
async function setup(o: Partial<CacherOptions> & { sharedClock?: boolean; progress?: boolean; wait?: boolean } = {}): Promise<Setup> {
  const clock = new FakeClock();
  const inner = new MemoryStorage({ clock: o.sharedClock ? clock : new FakeClock(), compaction: false, progressNotifyIntervalMs: 100 });
  const backend = new SwitchableStorage(inner, o.progress ?? true);
  const cacher = new Cacher({ storage: backend, resourcePrefix: PREFIX, clock, ...o });
  open.push(cacher);
  if (o.wait ?? true) await cacher.ready();
  return { clock, inner, backend, cacher };
}

describe('Cacher', () => {
  it('serves lists from the cache at its revision, in key order, and forwards what it cannot answer', async () => {
    const { cacher, inner } = await setup();
    await cacher.create(key('b'), widget('b'));
    await cacher.create(key('a'), widget('a'));
    await cacher.create(key('c', 'other'), widget('c', { ns: 'other' }));
    const all = await cacher.list(PREFIX, { resourceVersion: '' });
    expect(all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['default/a', 'default/b', 'other/c']);
    expect(all.metadata.resourceVersion).toBe(await inner.currentResourceVersion());
    const fromCache = await cacher.list(`${PREFIX}/default`, { resourceVersion: '0' });
    expect(names(fromCache)).toEqual(['a', 'b']);
    expect(fromCache.items[0]).toBe(await inner.get(key('a'))); // the backend's frozen object, shared
    // Exact and paginated lists are the backend's.
    const page = await cacher.list(PREFIX, { predicate: { limit: 1 } });
    expect(names(page)).toEqual(['a']);
    expect(page.metadata.continue).toBeTruthy();
    expect(supports(cacher, 'compact')).toBe(true);
    expect(supports(cacher, 'requestWatchProgress')).toBe(true);
  });

  it('forwards compact and requestWatchProgress only when the backend has them', async () => {
    const c = new Cacher({ storage: baseMethodsOf(new MemoryStorage({ compaction: false })), resourcePrefix: PREFIX });
    open.push(c);
    expect(supports(c, 'compact')).toBe(false);
    expect(supports(c, 'requestWatchProgress')).toBe(false);
  });

  it('watch from a revision older than its history is 410 "too old resource version: N (M)"', async () => {
    const { cacher } = await setup({ history: { minCapacity: 4, maxCapacity: 4 } });
    const created: KubeObject[] = [];
    for (let i = 0; i < 10; i++) created.push(await cacher.create(key(`w${i}`), widget(`w${i}`)));
    await flush(); // the cache learns writes from its watch, a few ticks later
    // Events 7..10 are kept: a watch can start after 6 at the earliest.
    const r = collect(cacher.watch(PREFIX, { resourceVersion: '2' }));
    await until(r.done);
    expect(r.events).toHaveLength(1);
    const st = r.events[0]?.object as Status;
    expect(r.events[0]?.type).toBe('ERROR');
    expect(st.code).toBe(410);
    expect(st.reason).toBe('Expired');
    expect(st.message).toBe('too old resource version: 2 (6)');
    const ok = collect(cacher.watch(PREFIX, { resourceVersion: '6' }));
    await until(() => ok.events.length === 4);
    expect(ok.events.map((e) => nameOf(e))).toEqual(['w6', 'w7', 'w8', 'w9']);
  });

  it('keeps history by size too: past maxBytes of objects the oldest events drop out and a watch from before them is 410', async () => {
    const big = (name: string): KubeObject => ({ ...widget(name), data: { blob: 'x'.repeat(1000) } });
    // Room for about three of these objects, in a history whose count would hold a hundred.
    const { cacher } = await setup({ history: { minCapacity: 100, maxCapacity: 100, maxBytes: 3500 } });
    for (let i = 0; i < 10; i++) await cacher.create(key(`w${i}`), big(`w${i}`));
    await flush();
    const r = collect(cacher.watch(PREFIX, { resourceVersion: '2' }));
    await until(r.done);
    expect(r.events[0]?.type).toBe('ERROR');
    expect(r.events[0]?.object).toMatchObject({ code: 410, message: 'too old resource version: 2 (7)' });
    const ok = collect(cacher.watch(PREFIX, { resourceVersion: '7' }));
    await until(() => ok.events.length === 3);
    expect(ok.events.map((e) => nameOf(e))).toEqual(['w7', 'w8', 'w9']);
    expect(cacher.stats().historySize).toBe(3);
  });

  it('compactHistory forgets its history up to the backend revision: an older watch is 410, an open one and a list go on', async () => {
    const { cacher } = await setup();
    const a = await cacher.create(key('a'), widget('a'));
    const open = collect(cacher.watch(PREFIX, { resourceVersion: String(rvOf(a)) }));
    await until(() => cacher.stats().watchers === 1); // attached once the cache reached a
    const b = await cacher.create(key('b'), widget('b'));
    await cacher.compactHistory();
    const old = collect(cacher.watch(PREFIX, { resourceVersion: String(rvOf(a)) }));
    await until(old.done);
    expect(old.events.map((e) => [e.type, (e.object as Status).code, (e.object as Status).message])).toEqual([
      ['ERROR', 410, `too old resource version: ${rvOf(a)} (${rvOf(b)})`],
    ]);
    const fromNow = collect(cacher.watch(PREFIX, { resourceVersion: String(rvOf(b)) }));
    const c = await cacher.create(key('c'), widget('c'));
    await until(() => fromNow.events.length === 1 && open.events.length === 2);
    expect(fromNow.events.map((e) => e.object)).toEqual([c]);
    expect(open.events.map((e) => nameOf(e))).toEqual(['b', 'c']);
    // A list "not older than" the forgotten revision is served as before.
    const list = await cacher.list(PREFIX, { resourceVersion: String(rvOf(a)), resourceVersionMatch: 'NotOlderThan' });
    expect(names(list)).toEqual(['a', 'b', 'c']);
  });

  it('a watch from beyond the backend revision waits 3 s for the cache (the events it wants may yet come), then ends with 504', async () => {
    const { cacher, clock } = await setup();
    const a = await cacher.create(key('a'), widget('a'));
    const late = collect(cacher.watch(PREFIX, { resourceVersion: String(rvOf(a) + 1) }));
    const never = collect(cacher.watch(PREFIX, { resourceVersion: '50' }));
    await flush();
    const b = await cacher.create(key('b'), widget('b'));
    const c = await cacher.create(key('c'), widget('c'));
    await until(() => late.events.length === 1);
    expect(late.events.map((e) => e.object)).toEqual([c]);
    expect(rvOf(b)).toBe(rvOf(a) + 1);
    clock.advance(2999);
    await flush();
    expect(never.done()).toBe(false);
    clock.advance(1);
    await until(never.done);
    expect(never.events.map((e) => e.type)).toEqual(['ERROR']);
    expect((never.events[0]?.object as Status | undefined)?.code).toBe(504);
  });

  it('NotOlderThan beyond the cache waits 3 s of clock time, then 504 too large with retry after 1 s', async () => {
    const { cacher, clock } = await setup();
    await cacher.create(key('a'), widget('a'));
    let settled: unknown;
    const p = cacher.list(PREFIX, { resourceVersion: '50', resourceVersionMatch: 'NotOlderThan' }).then(
      () => {
        settled = 'resolved';
      },
      (e: unknown) => {
        settled = e;
      },
    );
    clock.advance(2999);
    await flush();
    expect(settled).toBeUndefined();
    clock.advance(1);
    await p;
    const st = toStatusError(settled);
    expect(st.code).toBe(504);
    expect(st.retryAfterSeconds).toBe(1);
    expect(st.message).toMatch(/Too large resource version: 50, current: 1/);
    // A get waits the same way; the cache catching up within the wait serves it.
    const g = cacher.get(key('b'), { resourceVersion: '2' });
    await flush();
    const b = await cacher.create(key('b'), widget('b'));
    expect(await g).toEqual(b);
  });

  it('a consistent read right after a write returns that write, also one made behind its back', async () => {
    const { cacher, inner } = await setup();
    const a = await cacher.create(key('a'), widget('a'));
    expect((await cacher.list(PREFIX)).items).toEqual([a]);
    const b = await inner.create(key('b'), widget('b'));
    const l = await cacher.list(PREFIX, { resourceVersion: '' });
    expect(l.items).toEqual([a, b]);
    expect(rvOf(l)).toBe(rvOf(b));
    expect(cacher.stats().consistentReadFallbacks).toBe(0);
  });

  it('a consistent read asks the backend for progress when its revision moved elsewhere, and is served from the cache', async () => {
    const { cacher, inner } = await setup();
    const a = await cacher.create(key('a'), widget('a'));
    const other = await inner.create('/registry/gadgets/default/x', widget('x'));
    const l = await cacher.list(PREFIX, { resourceVersion: '' });
    expect(l.items).toEqual([a]);
    expect(rvOf(l)).toBe(rvOf(other));
    expect(cacher.stats()).toMatchObject({ consistentReadFallbacks: 0, resourceVersion: rvOf(other), lag: 1 });
  });

  it('a consistent read the cache cannot catch up with in time is read from the backend', async () => {
    const { cacher, inner, clock, backend } = await setup({ progress: false });
    // A backend that claims prompt progress but whose BOOKMARK never comes.
    backend.requestWatchProgress = async () => {};
    backend.promptWatchProgress = true;
    const a = await cacher.create(key('a'), widget('a'));
    const other = await inner.create('/registry/gadgets/default/x', widget('x'));
    const p = cacher.list(PREFIX, { resourceVersion: '' });
    await flush();
    clock.advance(3000);
    const l = await p;
    expect(l.items).toEqual([a]);
    expect(rvOf(l)).toBe(rvOf(other));
    expect(cacher.stats().consistentReadFallbacks).toBe(1);
  });

  it('a consistent read over a prompt backend costs one revision read, plus one progress request when the cache lags', async () => {
    const { cacher, inner, backend } = await setup();
    const calls: string[] = [];
    const count = <T>(name: string, f: () => Promise<T>) => {
      calls.push(name);
      return f();
    };
    backend.currentResourceVersion = () => count('revision', () => inner.currentResourceVersion());
    backend.requestWatchProgress = () => count('progress', () => inner.requestWatchProgress());
    const a = await cacher.create(key('a'), widget('a'));
    await flush();
    expect(await cacher.get(key('a'))).toEqual(a);
    expect(calls).toEqual(['revision']);
    // Another kind moved the backend on: the cache asks once for progress (no timer: the clock never moves).
    await inner.create('/registry/gadgets/default/x', widget('x'));
    calls.length = 0;
    expect((await cacher.list(PREFIX)).items).toEqual([a]);
    expect(calls).toEqual(['revision', 'progress']);
    expect(cacher.stats()).toMatchObject({ consistentReadFallbacks: 0, consistentReadsDelegated: 0 });
  });

  it('over a backend that cannot confirm freshness promptly, consistent reads and watches from "" go to it at once', async () => {
    const { cacher, inner, backend } = await setup({ progress: false });
    // etcd before 3.4.31 / 3.5.13: it has requestWatchProgress, but the BOOKMARK waits for its own timer.
    backend.requestWatchProgress = () => inner.requestWatchProgress();
    backend.promptWatchProgress = false;
    const a = await cacher.create(key('a'), widget('a'));
    const other = await inner.create('/registry/gadgets/default/x', widget('x'));
    // The cache's clock never moves: nothing here may wait on a timer.
    expect(await cacher.get(key('a'))).toEqual(a);
    const l = await cacher.list(PREFIX, { resourceVersion: '' });
    expect(l.items).toEqual([a]);
    expect(rvOf(l)).toBe(rvOf(other));
    const w = collect(cacher.watch(PREFIX, { resourceVersion: '' }));
    await until(() => w.events.length === 1);
    expect(w.events[0]?.object).toEqual(a);
    expect(backend.watches).toHaveLength(2);
    expect(cacher.stats()).toMatchObject({ consistentReadFallbacks: 0, consistentReadsDelegated: 3 });
    // Reads that need no confirmation still come from the cache.
    expect((await cacher.list(PREFIX, { resourceVersion: '0' })).items).toEqual([a]);
    expect(cacher.stats().consistentReadsDelegated).toBe(3);
  });

  it('a slow watcher is terminated once its buffer stays full past the budget; a fast one gets everything', async () => {
    const terminated: string[] = [];
    const { cacher, clock } = await setup({ watcherBufferSize: 5, metrics: { watcherTerminated: (why) => terminated.push(why) } });
    const start = await cacher.currentResourceVersion();
    const fast = collect(cacher.watch(PREFIX, { resourceVersion: start }));
    const slow = cacher.watch(PREFIX, { resourceVersion: start });
    for (let i = 0; i < 20; i++) await cacher.create(key(`o${String(i).padStart(2, '0')}`), widget(`o${String(i).padStart(2, '0')}`));
    await until(() => fast.events.length === 20);
    expect(cacher.stats().watchers).toBe(2);
    clock.advance(99);
    await flush();
    expect(terminated).toEqual([]);
    clock.advance(1);
    await flush();
    expect(terminated).toEqual(['slow']);
    expect(cacher.stats()).toMatchObject({ watchers: 1, slowWatchersTerminated: 1 });
    // The slow reader gets what it had buffered, then the end of the stream: no ERROR; it re-watches from there.
    const got: WatchEvent[] = [];
    for await (const e of slow) got.push(e);
    expect(got.map((e) => nameOf(e))).toEqual(['o00', 'o01', 'o02', 'o03', 'o04']);
    const resumed = collect(cacher.watch(PREFIX, { resourceVersion: got[4]?.object.metadata?.resourceVersion }));
    await until(() => resumed.events.length === 15);
    expect(nameOf(resumed.events[0])).toBe('o05');
    expect(fast.done()).toBe(false);
    await cacher.create(key('z'), widget('z'));
    await until(() => fast.events.length === 21);
  });

  it('a watcher that catches up within the budget stays, and the time it did not use goes back to the budget', async () => {
    const { cacher, clock } = await setup({ watcherBufferSize: 2 });
    const start = await cacher.currentResourceVersion();
    const lagging = cacher.watch(PREFIX, { resourceVersion: start });
    for (let i = 0; i < 4; i++) await cacher.create(key(`o${i}`), widget(`o${i}`));
    clock.advance(50);
    const it = lagging[Symbol.asyncIterator]();
    for (let i = 0; i < 4; i++) expect(nameOf((await it.next()).value)).toBe(`o${i}`);
    clock.advance(1000);
    await flush();
    expect(cacher.stats().slowWatchersTerminated).toBe(0);
    // Another burst is judged with the time returned (50 ms) plus what accrued: the watcher survives 60 ms more.
    for (let i = 4; i < 8; i++) await cacher.create(key(`o${i}`), widget(`o${i}`));
    clock.advance(60);
    await flush();
    expect(cacher.stats().slowWatchersTerminated).toBe(0);
    for (let i = 4; i < 8; i++) expect(nameOf((await it.next()).value)).toBe(`o${i}`);
  });

  it('a blocked watcher ended for another reason (a relist, stop) is not counted as slow', async () => {
    const terminated: string[] = [];
    const { cacher, clock } = await setup({ watcherBufferSize: 1, metrics: { watcherTerminated: (why) => terminated.push(why) } });
    cacher.watch(PREFIX, { resourceVersion: await cacher.currentResourceVersion() });
    for (let i = 0; i < 3; i++) await cacher.create(key(`o${i}`), widget(`o${i}`));
    cacher.stop();
    clock.advance(1000);
    await flush();
    expect(terminated).toEqual([]);
    expect(cacher.stats().slowWatchersTerminated).toBe(0);
  });

  it('sends BOOKMARKs about every minute, only to watchers that allow them, carrying the cache revision', async () => {
    const { cacher, clock, inner } = await setup();
    const a = await cacher.create(key('a'), widget('a'));
    const with_ = collect(cacher.watch(PREFIX, { resourceVersion: a.metadata.resourceVersion, allowWatchBookmarks: true }));
    const without = collect(cacher.watch(PREFIX, { resourceVersion: a.metadata.resourceVersion }));
    const x = await inner.create('/registry/gadgets/default/x', widget('x'));
    await cacher.list(PREFIX, { resourceVersion: '' }); // the cache learns revision x through a progress request
    clock.advance(59_000);
    await flush();
    expect(with_.events).toEqual([]);
    clock.advance(2_000);
    await flush();
    expect(with_.events).toEqual([{ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(rvOf(x)) } } }]);
    const b = await cacher.create(key('b'), widget('b'));
    clock.advance(61_000);
    await flush();
    expect(with_.events.map((e) => `${e.type} ${e.object.metadata?.resourceVersion}`)).toEqual([
      `BOOKMARK ${rvOf(x)}`,
      `ADDED ${rvOf(b)}`,
      `BOOKMARK ${rvOf(b)}`,
    ]);
    // Nothing new: no repeated bookmark at the same revision.
    clock.advance(61_000);
    await flush();
    expect(with_.events).toHaveLength(3);
    expect(without.events.map((e) => e.type)).toEqual(['ADDED']);
  });

  it('never forwards the backend progress BOOKMARKs: they only advance the cache revision', async () => {
    const { cacher, clock, inner } = await setup({ sharedClock: true });
    const w = collect(cacher.watch(PREFIX, { resourceVersion: '0', allowWatchBookmarks: true }));
    const x = await inner.create('/registry/gadgets/default/x', widget('x'));
    for (let i = 0; i < 10; i++) {
      clock.advance(1000); // MemoryStorage notifies progress every 100 ms of this clock
      await flush();
    }
    expect(cacher.stats().resourceVersion).toBe(rvOf(x));
    expect(w.events.filter((e) => e.type === 'BOOKMARK')).toEqual([]);
  });

  it('sendInitialEvents: the snapshot in key order, then the end BOOKMARK right away', async () => {
    const { cacher } = await setup();
    await cacher.create(key('b'), widget('b'));
    await cacher.create(key('a'), widget('a'));
    const c = await cacher.create(key('c', 'zz'), widget('c', { ns: 'zz' }));
    const r = collect(cacher.watch(PREFIX, { resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true }));
    await until(() => r.events.length === 4);
    expect(r.events.map((e) => `${e.type} ${nameOf(e) ?? ''}`)).toEqual(['ADDED a', 'ADDED b', 'ADDED c', 'BOOKMARK ']);
    expect(r.events[3]?.object).toEqual({
      metadata: { resourceVersion: String(rvOf(c)), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
    });
  });

  it('an indexed field selector: lists and watches look only at the objects holding that value', async () => {
    let attrCalls = 0;
    const getAttrs = (o: KubeObject) => {
      attrCalls++;
      const a = defaultAttrs(o);
      return { labels: a.labels, fields: { ...a.fields, 'spec.nodeName': String((o.spec as { nodeName?: string }).nodeName ?? '') } };
    };
    const { cacher } = await setup({ getAttrs, indexers: { 'spec.nodeName': (o) => (o.spec as { nodeName?: string }).nodeName } });
    for (let i = 0; i < 30; i++)
      await cacher.create(key(`p${String(i).padStart(2, '0')}`), widget(`p${String(i).padStart(2, '0')}`, { node: `n${i % 10}` }));
    const field = parseFieldSelector('spec.nodeName=n3');
    attrCalls = 0;
    const l = await cacher.list(PREFIX, { resourceVersion: '0', predicate: { field, getAttrs } });
    expect(names(l)).toEqual(['p03', 'p13', 'p23']);
    expect(attrCalls).toBe(3);
    const w = collect(cacher.watch(PREFIX, { resourceVersion: l.metadata.resourceVersion, predicate: { field, getAttrs } }));
    attrCalls = 0;
    const move = (name: string, node: string) =>
      cacher.guaranteedUpdate(key(name), (cur) => ({ ...(cur as KubeObject), spec: { size: 1, nodeName: node } }));
    await move('p05', 'n6'); // neither side is n3: the watcher is never asked
    const moved = await move('p04', 'n3');
    const left = await move('p13', 'n4');
    await until(() => w.events.length === 2);
    expect(w.events.map((e) => `${e.type} ${nameOf(e)}`)).toEqual(['ADDED p04', 'DELETED p13']);
    expect(w.events[0]?.object).toBe(moved);
    expect(rvOf(w.events[1]?.object as KubeObject)).toBe(rvOf(left));
    // p04 old and new, p13 new: p13's old attributes were computed once already, for the list.
    expect(attrCalls).toBe(3);
  });

  it('encodes each event once, whichever watchers and event types share it', async () => {
    const { cacher } = await setup();
    const from = await cacher.currentResourceVersion();
    const plain = Array.from({ length: 20 }, () => collect(cacher.watch(PREFIX, { resourceVersion: from })));
    const web = collect(cacher.watch(PREFIX, { resourceVersion: from, predicate: { label: parseLabelSelector('app=web') } }));
    await cacher.create(key('a'), widget('a'));
    await until(() => plain.every((r) => r.events.length === 1));
    let encodes = 0;
    const off = onEncode(() => encodes++);
    try {
      const updated = await cacher.guaranteedUpdate(key('a'), (cur) => ({
        ...(cur as KubeObject),
        metadata: { ...(cur as KubeObject).metadata, labels: { app: 'web' } },
      }));
      await until(() => plain.every((r) => r.events.length === 2) && web.events.length === 1);
      const lines = [...plain.map((r) => encodedEvent(r.events[1] as WatchEvent)), encodedEvent(web.events[0] as WatchEvent)];
      expect(encodes).toBe(1);
      expect(new Set(lines.slice(0, 20)).size).toBe(1); // the very same bytes for every MODIFIED watcher
      expect(JSON.parse(new TextDecoder().decode(lines[0]))).toEqual({ type: 'MODIFIED', object: updated });
      expect(JSON.parse(new TextDecoder().decode(lines[20]))).toEqual({ type: 'ADDED', object: updated });
    } finally {
      off();
    }
  });

  it('before the first sync: list and watch are 429 "storage is (re)initializing", get goes to the backend', async () => {
    const clock = new FakeClock();
    const inner = new MemoryStorage({ compaction: false });
    const backend = new SwitchableStorage(inner);
    const a = await inner.create(key('a'), widget('a'));
    let release!: () => void;
    backend.listGate = new Promise((r) => {
      release = r;
    });
    const cacher = new Cacher({ storage: backend, resourcePrefix: PREFIX, clock });
    open.push(cacher);
    for (const e of [await failureOf(() => cacher.list(PREFIX, { resourceVersion: '0' })), await failureOf(() => cacher.watch(PREFIX))]) {
      const st = toStatusError(e);
      expect(st.code).toBe(429);
      expect(st.message).toBe('storage is (re)initializing');
      expect(st.retryAfterSeconds).toBe(1);
    }
    expect(await cacher.get(key('a'), { resourceVersion: '0' })).toEqual(a);
    expect(cacher.stats().ready).toBe(false);
    release();
    await cacher.ready();
    expect((await cacher.list(PREFIX, { resourceVersion: '0' })).items).toEqual([a]);
  });

  it('from an empty backend at revision 0, writes made between its list and its watch reach the cache one by one, without a relist', async () => {
    const clock = new FakeClock();
    const inner = new MemoryStorage({ compaction: false });
    const backend = new SwitchableStorage(inner);
    const made: KubeObject[] = [];
    backend.afterList = async () => {
      backend.afterList = undefined;
      // Key order differs from revision order: the cache must get them from history, not from a snapshot.
      made.push(await inner.create(key('b'), widget('b')), await inner.create(key('a'), widget('a')));
    };
    const cacher = new Cacher({ storage: backend, resourcePrefix: PREFIX, clock });
    open.push(cacher);
    await cacher.ready();
    const [b, a] = made;
    expect((await cacher.list(PREFIX, { resourceVersion: '' })).items).toEqual([a, b]);
    const c = await cacher.create(key('c'), widget('c'));
    expect((await cacher.list(PREFIX, { resourceVersion: '' })).items).toEqual([a, b, c]);
    expect(cacher.stats()).toMatchObject({ resourceVersion: 3, historySize: 3, lists: 1 });
  });

  it('a broken backend watch resumes from the last revision: no relist, watchers carry on', async () => {
    const { cacher, backend, clock } = await setup();
    const w = collect(cacher.watch(PREFIX, { resourceVersion: await cacher.currentResourceVersion() }));
    await cacher.create(key('a'), widget('a'));
    backend.down = true;
    backend.breakWatches();
    await flush();
    const b = await backend.inner.create(key('b'), widget('b'));
    backend.down = false;
    await until(() => w.events.length === 2, clock, 1000);
    expect(w.events[1]?.object).toEqual(b);
    expect(cacher.stats().lists).toBe(1);
  });

  it('relists when the backend compacted past the cache: it converges, and watchers from older revisions get 410', async () => {
    const relists: number[] = [];
    const { cacher, backend, clock } = await setup({ metrics: { relisted: (i) => relists.push(i.resourceVersion) } });
    const a = await cacher.create(key('a'), widget('a'));
    await cacher.create(key('b'), widget('b'));
    const w = collect(cacher.watch(PREFIX, { resourceVersion: a.metadata.resourceVersion }));
    await until(() => w.events.length === 1);
    // The cache's watch breaks; meanwhile the backend changes and compacts its history.
    backend.down = true;
    backend.breakWatches();
    await flush();
    const inner = backend.inner;
    const a2 = await inner.guaranteedUpdate(key('a'), (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    await inner.delete(key('b'));
    const c = await inner.create(key('c'), widget('c'));
    await inner.compact(rvOf(c));
    backend.down = false;
    await until(() => cacher.stats().lists === 2 && cacher.stats().ready, clock, 1000);
    expect(relists).toEqual([0, rvOf(c)]);
    // Its watchers were ended without an error: they re-watch, and from their old revision that is too old.
    expect(w.done()).toBe(true);
    expect(w.events.map((e) => e.type)).toEqual(['ADDED']);
    const again = collect(cacher.watch(PREFIX, { resourceVersion: w.events[0]?.object.metadata?.resourceVersion }));
    await until(again.done);
    expect((again.events[0] as WatchEvent).object.message).toBe(`too old resource version: ${rvOf(a) + 1} (${rvOf(c)})`);
    const l = await cacher.list(PREFIX, { resourceVersion: '0' });
    expect(l.items).toEqual([a2, c]);
    expect(rvOf(l)).toBe(rvOf(c));
    const fresh = collect(cacher.watch(PREFIX, { resourceVersion: String(rvOf(c)) }));
    const d = await cacher.create(key('d'), widget('d'));
    await until(() => fresh.events.length === 1);
    expect(fresh.events[0]?.object).toEqual(d);
  });

  it('writes go to the backend with the cache object as cachedExisting, and keep keys the key function cannot derive', async () => {
    const { cacher, backend } = await setup();
    const a = await cacher.create(key('a'), widget('a'));
    await flush(); // the cache learns writes from its watch, a few ticks later
    await cacher.guaranteedUpdate(key('a'), (cur) => ({ ...(cur as KubeObject), spec: { size: 3 } }));
    expect(backend.updateCalls[0]?.cachedExisting).toBe(a);
    const nested = await cacher.create(`${key('a')}/child`, widget('kid'));
    expect((await cacher.list(key('a'), { resourceVersion: '' })).items).toEqual([nested]);
    expect(await cacher.get(`${key('a')}/child`, { resourceVersion: '0' })).toEqual(nested);
  });

  it('files objects under the keys the backend records: nested keys written behind the cache, also after a relist', async () => {
    const { cacher, backend, inner, clock } = await setup();
    const nested = `${key('a')}/child`;
    const kid = await inner.create(nested, widget('kid'));
    expect((await cacher.list(key('a'), { resourceVersion: '' })).items).toEqual([kid]);
    expect(storageKeyOf(kid)).toBe(nested);
    // The cache's watch breaks and the backend compacts past it: the relisted cache still knows the real keys.
    backend.down = true;
    backend.breakWatches();
    await flush();
    const kid2 = await inner.guaranteedUpdate(nested, (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    const deep = await inner.create(`${nested}/deeper`, widget('deeper'));
    await inner.compact(rvOf(deep));
    backend.down = false;
    await until(() => cacher.stats().lists === 2 && cacher.stats().ready, clock, 1000);
    const l = await cacher.list(key('a'), { resourceVersion: '0' });
    expect(l.items).toEqual([kid2, deep]);
    expect(l.items.map((o) => storageKeyOf(o))).toEqual([nested, `${nested}/deeper`]);
    expect(await cacher.get(nested, { resourceVersion: '0' })).toBe(kid2);
    const w = collect(cacher.watch(nested, { resourceVersion: String(rvOf(deep)), recursive: false }));
    const gone = await inner.delete(nested);
    await until(() => w.events.length === 1);
    expect(w.events[0]).toEqual({ type: 'DELETED', object: gone });
    expect(storageKeyOf(w.events[0]?.object as KubeObject)).toBe(nested);
  });

  it('over a backend that records no keys, keyFunc names the objects and the Cacher records the key it used', async () => {
    const inner = new MemoryStorage({ compaction: false });
    await inner.create(key('a'), widget('a'));
    const seen: string[] = [];
    const cacher = new Cacher({
      storage: keyless(inner),
      resourcePrefix: PREFIX,
      keyFunc: (o) => {
        seen.push(o.metadata.name ?? '');
        return key(o.metadata.name ?? '', o.metadata.namespace);
      },
    });
    open.push(cacher);
    await cacher.ready();
    const w = collect(cacher.watch(PREFIX, { resourceVersion: '0' }));
    await cacher.create(key('b'), widget('b'));
    await cacher.delete(key('a'));
    await until(() => w.events.length === 3);
    expect(w.events.map((e) => [e.type, storageKeyOf(e.object as KubeObject)])).toEqual([
      ['ADDED', key('a')],
      ['ADDED', key('b')],
      ['DELETED', key('a')],
    ]);
    const l = await cacher.list(PREFIX, { resourceVersion: '0' });
    expect(l.items.map((o) => storageKeyOf(o))).toEqual([key('b')]);
    expect(seen).toEqual(['a', 'b', 'a']);
  });

  it('reports metrics: dispatched events, watchers, lag', async () => {
    const seen: string[] = [];
    const { cacher, inner } = await setup({
      metrics: {
        eventDispatched: (e) => seen.push(`event ${e.type} ${e.watchers}`),
        watchersChanged: (n) => seen.push(`watchers ${n}`),
        lagObserved: (l) => seen.push(`lag ${l.lag}`),
      },
    });
    const w = cacher.watch(PREFIX, { resourceVersion: '0' });
    await cacher.create(key('a'), widget('a'));
    await flush();
    await inner.create('/registry/gadgets/x', widget('x'));
    expect(await cacher.measureLag()).toBe(1);
    w.stop();
    expect(seen).toEqual(['watchers 1', 'event ADDED 1', 'lag 1', 'watchers 0']);
  });

  it('stop ends every watch and later reads go to the backend', async () => {
    const { cacher } = await setup();
    const a = await cacher.create(key('a'), widget('a'));
    const w = collect(cacher.watch(PREFIX, { resourceVersion: '0' }));
    await until(() => w.events.length === 1);
    cacher.stop();
    await until(w.done);
    expect(await cacher.get(key('a'), { resourceVersion: '0' })).toEqual(a);
    await expect(cacher.ready()).rejects.toThrow();
  });
});

/** `s` as a backend outside kapi might be: its lists and watch events hand out copies without a recorded key. */
function keyless(s: Storage): Storage {
  return {
    ...baseMethodsOf(s),
    list: async (k, o) => {
      const l = await s.list(k, o);
      return { ...l, items: l.items.map((i) => structuredClone(i)) };
    },
    watch: (k, o) => {
      const w = s.watch(k, o);
      return {
        stop: () => w.stop(),
        async *[Symbol.asyncIterator]() {
          for await (const e of w) yield e.type === 'ERROR' ? e : { ...e, object: structuredClone(e.object) };
        },
      };
    },
  };
}

/** Only the Storage methods of `s` (no optional capabilities). */
function baseMethodsOf(s: Storage): Storage {
  return {
    create: (...a) => s.create(...a),
    get: (...a) => s.get(...a),
    list: (...a) => s.list(...a),
    guaranteedUpdate: (...a) => s.guaranteedUpdate(...a),
    delete: (...a) => s.delete(...a),
    watch: (...a) => s.watch(...a),
    count: (...a) => s.count(...a),
    currentResourceVersion: () => s.currentResourceVersion(),
    close: () => s.close(),
  };
}

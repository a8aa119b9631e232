import { type KubeObject, MAX_JSON_DEPTH, stringifyJson, type WatchEvent } from '@kapi/apimachinery';
import type { Compactable, Storage, Watch } from '@kapi/storage';
import { type ConformanceOptions, runStorageConformance } from '@kapi/storage/conformance';
import { afterEach, describe, expect, it } from 'vitest';
import { Cacher } from '../cacher.ts';
import { encodedEvent, encodedObject, onEncode } from '../encoded-event.ts';

/** Reads beyond the backend's revision give up after this instead of kube-apiserver's 3 s (cacher.test.ts checks 3 s). */
const FRESHNESS_MS = 500;

/** One case's backend: a fresh Storage, the prefix the suite writes under, and how time passes for it. */
export interface BackendUnderCache {
  storage: Storage & Compactable;
  resourcePrefix: string;
  /** Default: a real sleep. */
  elapse?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Dev-only (excluded from the build): the shared storage conformance suite through a Cacher in front of a fresh backend
 * per case. The Cacher runs on real time so its waits end by themselves, with bookmarks often enough for the suite's
 * progress case.
 */
export function runCacherConformance(name: string, backend: () => BackendUnderCache, options: ConformanceOptions = {}): void {
  runStorageConformance(
    name,
    async () => {
      const { storage, resourcePrefix, elapse } = backend();
      const cacher = new Cacher({ storage, resourcePrefix, bookmarkIntervalMs: 100, freshnessTimeoutMs: FRESHNESS_MS });
      await cacher.ready();
      return {
        storage: cacher,
        resourcePrefix,
        compact: async (rev) => {
          // A real compactor compacts revisions minutes old: let the cache see `rev` first, so compaction does not race
          // the cache's own backend watch (cacher.test.ts covers compaction past the cache).
          await cacher.list(resourcePrefix, { resourceVersion: String(rev), resourceVersionMatch: 'NotOlderThan' }).catch(() => {});
          await storage.compact(rev);
        },
        elapse: elapse ?? sleep,
        close: async () => {
          await cacher.close();
          await storage.close();
        },
      };
    },
    { cache: true, ...options },
  );
}

/** A consistent read right after a write returns that write, whether it went through the cache or behind its back. */
export async function checkConsistentReadAfterWrite(storage: Storage, resourcePrefix: string): Promise<void> {
  const cacher = new Cacher({ storage, resourcePrefix });
  try {
    await cacher.ready();
    const widget = (name: string) => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name, namespace: 'ns' } });
    for (let i = 0; i < 20; i++) {
      const via = i % 2 === 0 ? cacher : storage;
      const created = await via.create(`${resourcePrefix}/ns/w${i}`, widget(`w${i}`));
      const l = await cacher.list(resourcePrefix, { resourceVersion: '' });
      expect(l.items).toHaveLength(i + 1);
      expect(l.items.find((o) => o.metadata.name === `w${i}`)).toEqual(created);
      expect(l.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    }
    expect(cacher.stats().consistentReadFallbacks).toBe(0);
  } finally {
    await cacher.close();
    await storage.close();
  }
}

/** How long the watch cases wait for an event before failing. */
const EVENT_TIMEOUT_MS = 5000;

/** The next non-BOOKMARK event, or a failure naming what ended or timed out the wait. */
async function nextChange(it: AsyncIterator<WatchEvent>, what: string): Promise<WatchEvent> {
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), EVENT_TIMEOUT_MS);
    });
    const r = await Promise.race([it.next(), timeout]).finally(() => clearTimeout(timer));
    if (r === 'timeout') throw new Error(`timed out waiting for ${what}`);
    if (r.done) throw new Error(`the watch ended while waiting for ${what}`);
    if (r.value.type !== 'BOOKMARK') return r.value;
  }
}

/** "TYPE name rv" of a change, for comparisons. */
const brief = (e: WatchEvent): string =>
  e.type === 'ERROR' ? `ERROR ${e.object.code}` : `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`;
const briefOf = (type: string, o: KubeObject): string => `${type} ${o.metadata.name} ${o.metadata.resourceVersion}`;

/**
 * Dev-only: how watches through a Cacher behave on a fresh backend — a store that has never been written, as `npm
 * start` gives. A watch ends only on its timeout, its client leaving, a 410 or slow-watcher termination, never because
 * the cache resynchronised when nothing was lost; a watch from a revision the cache has not reached yet waits for it
 * and then delivers every change after it (kube's waitUntilFreshAndBlock).
 */
export function runCacherWatchCases(name: string, backend: () => BackendUnderCache): void {
  describe(`${name}: watches on a fresh backend`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });

    /** A Cacher over a fresh backend; the case awaits ready() itself and writes at once, before the cache's watch is up. */
    function start(): { cacher: Cacher; storage: Storage; prefix: string; watch: (rv: string) => AsyncIterator<WatchEvent> } {
      const { storage, resourcePrefix } = backend();
      const cacher = new Cacher({ storage, resourcePrefix });
      const watches: Watch[] = [];
      cleanups.push(async () => {
        for (const w of watches) w.stop();
        await cacher.close();
        await storage.close();
      });
      const watch = (rv: string) => {
        const w = cacher.watch(resourcePrefix, { resourceVersion: rv });
        watches.push(w);
        return w[Symbol.asyncIterator]();
      };
      return { cacher, storage, prefix: resourcePrefix, watch };
    }

    const widget = (n: string): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name: n, namespace: 'ns' } });
    const bump = (cur: KubeObject | null, n: number): KubeObject => ({ ...(cur as KubeObject), spec: { n } });

    it('a watch from the revision of the first write gets the next change: the cache does not relist and end it', async () => {
      const { cacher, prefix, watch } = start();
      await cacher.ready();
      const o = await cacher.create(`${prefix}/ns/w`, widget('w'));
      const w = watch(o.metadata.resourceVersion as string);
      const u = await cacher.guaranteedUpdate(`${prefix}/ns/w`, (cur) => bump(cur, 1));
      expect(brief(await nextChange(w, 'the update'))).toBe(briefOf('MODIFIED', u));
      expect(cacher.stats().lists).toBe(1);
    });

    it('a watch from a revision the cache has not reached yet waits for it, then delivers every change after it', async () => {
      const { cacher, storage, prefix, watch } = start();
      await cacher.ready();
      // Written behind the cache's back, and watched from before the last of them was even written.
      const a = await storage.create(`${prefix}/ns/a`, widget('a'));
      const w = watch(String(Number(a.metadata.resourceVersion) + 1));
      const b = await storage.create(`${prefix}/ns/b`, widget('b'));
      const c = await storage.create(`${prefix}/ns/c`, widget('c'));
      const a2 = await cacher.guaranteedUpdate(`${prefix}/ns/a`, (cur) => bump(cur, 2));
      const got: string[] = [];
      for (const what of ['c', 'the update of a']) got.push(brief(await nextChange(w, what)));
      expect(Number(b.metadata.resourceVersion)).toBe(Number(a.metadata.resourceVersion) + 1);
      expect(got).toEqual([briefOf('ADDED', c), briefOf('MODIFIED', a2)]);
      expect(cacher.stats().lists).toBe(1);
    });

    it('1,000 watchers opened right after a write each get every following change, in order', async () => {
      const { cacher, prefix, watch } = start();
      await cacher.ready();
      const o = await cacher.create(`${prefix}/ns/fan`, widget('fan'));
      const ws = Array.from({ length: 1000 }, () => watch(o.metadata.resourceVersion as string));
      const want: string[] = [];
      for (let i = 1; i <= 3; i++) want.push(briefOf('MODIFIED', await cacher.guaranteedUpdate(`${prefix}/ns/fan`, (cur) => bump(cur, i))));
      const got = await Promise.all(
        ws.map(async (w, i) => {
          const out: string[] = [];
          for (let k = 0; k < want.length; k++) out.push(brief(await nextChange(w, `change ${k + 1} at watcher ${i}`)));
          return out;
        }),
      );
      for (const g of got) expect(g).toEqual(want);
      expect(cacher.stats()).toMatchObject({ lists: 1, slowWatchersTerminated: 0 });
    });
  });
}

/**
 * Dev-only: objects nested as deep as kube's decoder admits (10,000 levels) go through the cache like any other: they
 * are frozen and indexed, served from the cache by gets, lists and watches, and encoded once for every reader (the
 * shared encoding), although JSON.stringify and structuredClone give up thousands of levels earlier.
 */
export function runCacherDeepNestingCases(name: string, backend: () => BackendUnderCache): void {
  describe(`${name}: objects nested 10,000 levels`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });

    /** `{"a":{"a":…leaf…}}`, `depth` objects deep, built in a loop. */
    const nested = (depth: number, leaf: Record<string, unknown>): Record<string, unknown> => {
      let v = leaf;
      for (let i = 1; i < depth; i++) v = { a: v };
      return v;
    };
    const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

    it('are served from the cache to gets, lists and watchers, each version encoded once for all of them', async () => {
      const { storage, resourcePrefix: prefix } = backend();
      const cacher = new Cacher({ storage, resourcePrefix: prefix });
      const watches: Watch[] = [];
      cleanups.push(async () => {
        for (const w of watches) w.stop();
        await cacher.close();
        await storage.close();
      });
      await cacher.ready();
      const from = await cacher.currentResourceVersion();
      const its = [0, 1].map(() => {
        const w = cacher.watch(prefix, { resourceVersion: from });
        watches.push(w);
        return w[Symbol.asyncIterator]();
      });
      const encodes: number[] = [];
      cleanups.push(async () => off());
      const off = onEncode((bytes) => encodes.push(bytes));

      // The object is one level, its spec the other 9,999.
      const spec = nested(MAX_JSON_DEPTH - 1, { n: 1 });
      const created = await cacher.create(`${prefix}/ns/deep`, {
        apiVersion: 'v1',
        kind: 'Widget',
        metadata: { name: 'deep', namespace: 'ns' },
        spec,
      });
      const rv = created.metadata.resourceVersion as string;
      const want = stringifyJson({ ...created });
      const added = await Promise.all(its.map((it) => nextChange(it, 'ADDED of the deep object')));
      for (const ev of added) {
        expect(ev.type).toBe('ADDED');
        expect(Object.isFrozen(ev.object)).toBe(true);
        expect(text(encodedObject(ev.object))).toBe(want);
        expect(text(encodedEvent(ev))).toBe(`{"type":"ADDED","object":${want}}\n`);
      }
      // Served from the cache ("0" may be), the same frozen version whose bytes the watchers already made.
      const got = await cacher.get(`${prefix}/ns/deep`, { resourceVersion: '0' });
      const listed = await cacher.list(prefix, { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' });
      expect(listed.items).toHaveLength(1);
      for (const o of [got as KubeObject, listed.items[0] as KubeObject]) {
        expect(o.metadata.resourceVersion).toBe(rv);
        expect(text(encodedObject(o))).toBe(want);
      }
      expect(encodes).toHaveLength(1);

      // A change at the bottom of the nesting reaches the cache and its watchers.
      const updated = await cacher.guaranteedUpdate(`${prefix}/ns/deep`, (cur) => ({
        ...(cur as KubeObject),
        spec: nested(MAX_JSON_DEPTH - 1, { n: 2 }),
      }));
      const want2 = stringifyJson({ ...updated });
      for (const it of its) {
        const ev = await nextChange(it, 'MODIFIED of the deep object');
        expect(ev.type).toBe('MODIFIED');
        expect(text(encodedObject(ev.object))).toBe(want2);
      }
      expect(text(encodedObject((await cacher.get(`${prefix}/ns/deep`, { resourceVersion: '0' })) as KubeObject))).toBe(want2);
    });
  });
}

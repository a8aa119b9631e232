/**
 * The Cacher against the backend it fronts, in one run: LIST of 10,000 objects from the cache vs from the backend
 * (MemoryStorage, and a real etcd started for the run); one write delivered to 1,000 watchers (p50/p99 latency from
 * the write to each watcher holding the event's encoded bytes, and encodes per event) vs the same watchers on the
 * backend, each encoding for itself as a server would; memory per cached object vs its JSON size, and the Cacher over
 * MemoryStorage in one process holding ConfigMaps (storage, cache, bounded encoding memo, history bounded by bytes); the cache's store
 * taking watch events into a cache of 100,000 objects vs the splice-based sorted array it used before.
 * Run: `npm run bench` in packages/watchcache (node --expose-gc).
 */
import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { type ListOptions, MemoryStorage, type Storage, type Watch } from '@kapi/storage';
import { EtcdStorage } from '@kapi/storage-etcd';
import { startEtcd } from '@kapi/test-servers';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, rateWithConcurrency, timeOps } from '../../../scripts/bench-kit.ts';
import { Cacher, encodedEvent, encodedObject, encodingMemoBytes, onEncode, setEncodingMemoLimit } from '../src/index.ts';
import { WatchCacheStore } from '../src/watch-cache-store.ts';

const PREFIX = '/registry/widgets';
const DIR = `${PREFIX}/default/`;
const N = 10_000;
const LISTS = 10;
const WATCHERS = 1_000;
const WRITES = 200;

const objs = Array.from({ length: N }, (_, i) => benchWidget(i));
const keyOf = (i: number) => `${DIR}${objs[i]?.metadata.name}`;

async function fill(s: Storage, concurrency: number): Promise<void> {
  await rateWithConcurrency(N, concurrency, (i) => s.create(keyOf(i), objs[i] as KubeObject));
}

/** Lists per second of LISTS lists of the whole prefix. */
function lists(s: Storage, opts: ListOptions): () => Promise<number> {
  return () =>
    timeOps(LISTS, async () => {
      for (let r = 0; r < LISTS; r++) {
        const l = await s.list(PREFIX, opts);
        if (l.items.length !== N) throw new Error(`listed ${l.items.length}`);
      }
    });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

// ---- LIST of 10,000 ----
const listRows: BenchRow[] = [];
const memory = new MemoryStorage({ compaction: false });
await fill(memory, 1);
const memCacher = new Cacher({ storage: memory, resourcePrefix: PREFIX });
await memCacher.ready();
listRows.push([
  `memory: list ${N}, RV "0"`,
  ...(await bestOfAlternating(5, lists(memCacher, { resourceVersion: '0' }), lists(memory, {}))),
]);
listRows.push([`memory: list ${N}, RV ""`, ...(await bestOfAlternating(5, lists(memCacher, { resourceVersion: '' }), lists(memory, {})))]);

const etcd = await startEtcd();
const etcdStorage = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: '/bench' });
let etcdCacher: Cacher | undefined;
try {
  await fill(etcdStorage, 32);
  etcdCacher = new Cacher({ storage: etcdStorage, resourcePrefix: PREFIX });
  await etcdCacher.ready();
  listRows.push([
    `etcd: list ${N}, RV "0"`,
    ...(await bestOfAlternating(3, lists(etcdCacher, { resourceVersion: '0' }), lists(etcdStorage, {}))),
  ]);
  listRows.push([
    `etcd: list ${N}, RV ""`,
    ...(await bestOfAlternating(3, lists(etcdCacher, { resourceVersion: '' }), lists(etcdStorage, {}))),
  ]);
} finally {
  await etcdCacher?.close();
  await etcdStorage.close();
  await etcd.stop();
}
printTable({
  title: `@kapi/watchcache Cacher vs its backend: lists/s of ${N} objects, node ${process.version}`,
  notes: ['kapi = the Cacher in front of the backend; reference = the same list (consistent) read from the backend itself'],
  referenceName: 'backend',
  rows: listRows,
});

// ---- 1 write → 1,000 watchers ----
/**
 * WRITES updates, one at a time, each awaited until all WATCHERS watchers hold its bytes; returns the latencies (ms)
 * from each write's start to each watcher's receipt, and how many encodings were made per write.
 */
async function fanOut(
  s: Storage,
  tag: string,
  encode: (ev: WatchEvent) => Uint8Array,
): Promise<{ latencies: number[]; encodesPerEvent: number }> {
  const from = await s.currentResourceVersion();
  const watches: Watch[] = Array.from({ length: WATCHERS }, () => s.watch(PREFIX, { resourceVersion: from }));
  const latencies: number[] = [];
  let writeStart = 0;
  let received = 0;
  let allIn: () => void = () => {};
  const readers = watches.map(async (w) => {
    for await (const ev of w) {
      if (ev.type === 'BOOKMARK') continue;
      encode(ev);
      latencies.push(performance.now() - writeStart);
      if (++received === WATCHERS) allIn();
    }
  });
  let encodes = 0;
  const off = onEncode(() => encodes++);
  for (let i = 0; i < WRITES; i++) {
    received = 0;
    const done = new Promise<void>((r) => {
      allIn = r;
    });
    writeStart = performance.now();
    await s.guaranteedUpdate(keyOf(i), (c) => ({ ...(c as KubeObject), status: { replicas: 3, observed: `${tag}-${i}` } }));
    await done;
  }
  off();
  for (const w of watches) w.stop();
  await Promise.all(readers);
  return { latencies: latencies.sort((a, b) => a - b), encodesPerEvent: encodes / WRITES };
}

const viaCache = await fanOut(memCacher, 'cache', encodedEvent);
// The reference: the backend's own watches, each watcher encoding its event as a server writing it would.
const utf8 = new TextEncoder();
let backendEncodes = 0;
const viaBackend = await fanOut(memory, 'backend', (ev) => {
  backendEncodes++;
  return utf8.encode(`${JSON.stringify({ type: ev.type, object: ev.object })}\n`);
});
const line = (name: string, r: { latencies: number[]; encodesPerEvent: number }, encodes: number) =>
  `${name.padEnd(34)}${pct(r.latencies, 50).toFixed(2).padStart(9)}${pct(r.latencies, 99).toFixed(2).padStart(9)}${String(encodes).padStart(12)}`;
console.log('');
console.log(`1 write → ${WATCHERS} watchers (${WRITES} writes, MemoryStorage backend), latency from write to bytes in hand, ms`);
console.log(`${'path'.padEnd(34)}${'p50'.padStart(9)}${'p99'.padStart(9)}${'encodes/event'.padStart(16)}`);
console.log(line('Cacher + encodedEvent', viaCache, viaCache.encodesPerEvent));
console.log(line('backend watch + JSON per watcher', viaBackend, backendEncodes / WRITES));

// ---- memory per cached object ----
/** A backend that hands out fresh objects from list and watch, as a remote one (etcd, Redis) does. */
class CopyingStorage extends MemoryStorage {
  override async list(key: string, opts?: ListOptions) {
    const l = await super.list(key, opts);
    return { ...l, items: l.items.map((o) => JSON.parse(JSON.stringify(o)) as KubeObject) };
  }
}
const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  // Encoded bytes live in ArrayBuffers, outside the JS heap.
  return m.heapUsed + m.arrayBuffers;
};
const copying = new CopyingStorage({ compaction: false });
await fill(copying, 1);
const jsonBytes = objs.reduce((n, o) => n + utf8.encode(JSON.stringify(o)).length, 0) / N;
const before = heap();
const measured = new Cacher({ storage: copying, resourcePrefix: PREFIX });
await measured.ready();
const withObjects = (heap() - before) / N;
const shared = new Cacher({ storage: memory, resourcePrefix: PREFIX });
const beforeShared = heap();
await shared.ready();
const overhead = (heap() - beforeShared) / N;
const beforeBytes = heap();
for (const o of (await measured.list(PREFIX, { resourceVersion: '0' })).items) encodedEvent({ type: 'ADDED', object: o });
const bytesMemo = (heap() - beforeBytes) / N;
console.log('');
console.log(`memory per cached object (${N} objects; heap + array buffers delta${gc ? ' after gc' : ', no --expose-gc: rough'}), bytes`);
const row = (name: string, bytes: number, note = '') => console.log(`${name.padEnd(60)}${Math.round(bytes).toString().padStart(8)}${note}`);
row('JSON size of the object', jsonBytes);
row('cached object + its key and indexes (objects the cache decoded)', withObjects, `   ${(withObjects / jsonBytes).toFixed(2)}× JSON`);
row('the cache alone (objects shared with MemoryStorage)', overhead);
row('+ its JSON bytes, once served (memoized with the object)', bytesMemo);

for (const c of [memCacher, measured, shared]) await c.close();
await memory.close();
await copying.close();

// ---- memory per object: the Cacher over MemoryStorage in one process, ConfigMaps as a server stores them ----
{
  /** A ConfigMap of about 1 KB of JSON as the example server stores it: uid, timestamps, labels, one managedFields entry. */
  const configMap = (i: number, gen: number): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: 'default',
      uid: `6c0a6a5e-1b7e-4c8e-9a2f-${String(i).padStart(12, '0')}`,
      creationTimestamp: '2026-11-28T20:30:00Z',
      labels: { app: 'memory-bench', shard: String(i % 10) },
      managedFields: [
        {
          manager: 'node',
          operation: 'Update',
          apiVersion: 'v1',
          time: `2026-11-28T20:3${gen}:00Z`,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { '.': {}, 'f:config.yaml': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:shard': {} } } },
        },
      ],
    },
    data: { 'config.yaml': `${gen}-${i}-`.padEnd(560, 'abcdefghijklmnopqrstuvwxyz0123456789') },
  });
  const CM = '/registry/configmaps';
  const cmKey = (i: number) => `${CM}/default/cm-${i}`;
  const cmJson = utf8.encode(
    JSON.stringify({ ...configMap(0, 0), metadata: { ...configMap(0, 0).metadata, resourceVersion: '12345' } }),
  ).length;
  /** Settled heap: freed array buffers are released after a gc, not in it (so the sections above cannot leak in). */
  const settledHeap = async () => {
    for (let i = 0; i < 3; i++) {
      heap();
      await new Promise((r) => setTimeout(r, 20));
    }
    return heap();
  };
  const perObject = async (from: number) => ((await settledHeap()) - from) / N;
  const lines: [string, number][] = [];
  // Start from an empty memo: the sections above left encodings in it.
  setEncodingMemoLimit(0);
  setEncodingMemoLimit();
  const zero = await settledHeap();
  // Bounds small enough for N objects to pass them, so the bench shows history held by size: 4 MiB of history each.
  const storage = new MemoryStorage({ compaction: { keepSeconds: 300, maxHistoryBytes: 4 * 2 ** 20 } });
  for (let i = 0; i < N; i++) await storage.create(cmKey(i), configMap(i, 0));
  lines.push(['MemoryStorage: the object and its MVCC entry', await perObject(zero)]);
  const cacher = new Cacher({ storage, resourcePrefix: CM, history: { maxBytes: 4 * 2 ** 20 } });
  await cacher.ready();
  lines.push(['+ the Cacher (store, indexes; objects shared with the storage)', await perObject(zero)]);
  /** Per object once the memo forgot every encoding: what stays is what grows with the objects. */
  const withoutMemo = async () => {
    setEncodingMemoLimit(0);
    const bytes = await perObject(zero);
    setEncodingMemoLimit();
    return bytes;
  };
  for (const o of (await cacher.list(CM, { resourceVersion: '0' })).items) encodedObject(o);
  lines.push([
    `+ served once: encodings in the bounded memo (${(encodingMemoBytes() / 2 ** 20).toFixed(1)} MiB held)`,
    await perObject(zero),
  ]);
  lines.push(['  the same with the memo emptied (it is a constant: at most 16 MiB)', await withoutMemo()]);
  for (let i = 0; i < N; i++) await cacher.guaranteedUpdate(cmKey(i), () => configMap(i, 1));
  await new Promise((r) => setTimeout(r, 50));
  lines.push(['after one update each: both histories bounded at 4 MiB', await perObject(zero)]);
  lines.push(['  the same with the memo emptied', await withoutMemo()]);
  await storage.compact(Number(await storage.currentResourceVersion()));
  await cacher.compactHistory();
  lines.push(['  … and history compacted to the head (one revision of each)', await withoutMemo()]);
  console.log('');
  console.log(
    `memory per object: Cacher over MemoryStorage in one process, ${N} ConfigMaps of ${cmJson} bytes of JSON; heap + array buffers after gc, bytes`,
  );
  for (const [name, bytes] of lines)
    console.log(`${name.padEnd(66)}${Math.round(bytes).toString().padStart(8)}${`${(bytes / cmJson).toFixed(2)}× JSON`.padStart(13)}`);
  await cacher.close();
  await storage.close();
}

// ---- the cache's store: watch events into a cache of 100,000 objects with random names ----

/**
 * REFERENCE ONLY, the previous design of WatchCacheStore's ordering: a Map, the namespace index, and one array of
 * entries kept sorted by `splice` on every ADDED and DELETED (O(n) per event).
 */
interface StoreEntry {
  readonly key: string;
  readonly obj: KubeObject;
  added: WatchEvent | undefined;
}

class SplicedStore {
  readonly byKey = new Map<string, StoreEntry>();
  readonly byNamespace = new Map<string, Set<string>>();
  sorted: StoreEntry[] = [];
  replace(items: readonly { key: string; obj: KubeObject }[]): void {
    for (const { key, obj } of items) this.#put({ key, obj, added: undefined });
    this.sorted = [...this.byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  set(key: string, obj: KubeObject): void {
    const entry: StoreEntry = { key, obj, added: undefined };
    const prev = this.byKey.get(key);
    this.#put(entry);
    const i = this.#search(key);
    if (prev) this.sorted[i] = entry;
    else this.sorted.splice(i, 0, entry);
  }
  delete(key: string): void {
    const prev = this.byKey.get(key);
    if (!prev) return;
    this.byKey.delete(key);
    this.byNamespace.get(prev.obj.metadata.namespace ?? '')?.delete(key);
    this.sorted.splice(this.#search(key), 1);
  }
  range(prefix: string): StoreEntry[] {
    const from = this.#search(prefix);
    let end = Math.max(from, this.#search(`${prefix}\uffff`));
    while (end < this.sorted.length && (this.sorted[end] as StoreEntry).key.startsWith(prefix)) end++;
    return this.sorted.slice(from, end);
  }
  #put(e: StoreEntry): void {
    this.byKey.set(e.key, e);
    const ns = e.obj.metadata.namespace ?? '';
    let keys = this.byNamespace.get(ns);
    if (!keys) {
      keys = new Set();
      this.byNamespace.set(ns, keys);
    }
    keys.add(e.key);
  }
  #search(key: string): number {
    const a = this.sorted;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((a[mid] as StoreEntry).key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

{
  const BIG = 100_000;
  let seed = 42;
  /** A seeded PRNG (Park–Miller), so every run caches the same random names. */
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const taken = new Set<string>();
  const randomKeys = (count: number) => {
    const out: string[] = [];
    while (out.length < count) {
      const k = `${DIR}r-${Math.floor(random() * 36 ** 8).toString(36)}`;
      if (!taken.has(k)) out.push(k);
      taken.add(k);
    }
    return out;
  };
  const bigItems = randomKeys(BIG).map((key, i) => ({ key, obj: benchWidget(i) }));
  const added = randomKeys(N).map((key, i) => ({ key, obj: benchWidget(BIG + i) }));
  const storeRows: BenchRow[] = [];
  const kapiStore = () => {
    const st = new WatchCacheStore();
    st.replace(bigItems);
    return st;
  };
  const refStore = () => {
    const st = new SplicedStore();
    st.replace(bigItems);
    return st;
  };
  storeRows.push([
    `ADDED ${N} into ${BIG}`,
    ...(await bestOfAlternating(
      5,
      async () => {
        const st = kapiStore();
        return timeOps(N, () => {
          for (const { key, obj } of added) st.set(key, obj);
        });
      },
      async () => {
        const st = refStore();
        return timeOps(N, () => {
          for (const { key, obj } of added) st.set(key, obj);
        });
      },
    )),
  ]);
  const doomed = bigItems.slice(0, N);
  storeRows.push([
    `DELETED ${N} from ${BIG}`,
    ...(await bestOfAlternating(
      5,
      async () => {
        const st = kapiStore();
        return timeOps(N, () => {
          for (const { key } of doomed) st.delete(key);
        });
      },
      async () => {
        const st = refStore();
        return timeOps(N, () => {
          for (const { key } of doomed) st.delete(key);
        });
      },
    )),
  ]);
  const k = kapiStore();
  const r = refStore();
  const RANGES = 20;
  storeRows.push([
    `range of ${BIG} (list, initial events)`,
    ...(await bestOfAlternating(
      5,
      async () =>
        timeOps(RANGES, () => {
          for (let i = 0; i < RANGES; i++) if (k.range(DIR).length !== BIG) throw new Error('short range');
        }),
      async () =>
        timeOps(RANGES, () => {
          for (let i = 0; i < RANGES; i++) if (r.range(DIR).length !== BIG) throw new Error('short range');
        }),
    )),
  ]);
  console.log('');
  printTable({
    title: `@kapi/watchcache WatchCacheStore (SortedMap) vs the spliced sorted array it replaced, ops/s, ${BIG} random names`,
    notes: ['both keep a Map by key and the namespace index; reference = the previous design, kept in this file'],
    referenceName: 'spliced',
    rows: storeRows,
  });
}

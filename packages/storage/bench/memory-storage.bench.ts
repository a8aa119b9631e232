/**
 * MemoryStorage against the floor: a plain Map doing the same writes and reads, measured in the same run.
 * Figures are ops/s (best of several rounds); the ratio is kapi / floor. Then the ordered key index (SortedMap)
 * against the design it replaced, one sorted array spliced on every insert and remove, on 100,000 random keys.
 * Run: `npm run bench` in packages/storage.
 */
import type { KubeObject } from '@kapi/apimachinery';
import { MemoryStorage, SortedMap } from '@kapi/storage';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { seededRandom as rng } from '../../../scripts/seeded-random.ts';

const PREFIX = '/registry/widgets/default/';
const N = 10_000;
const WATCHERS = 1_000;
const WATCH_WRITES = 200;

const objs = Array.from({ length: N }, (_, i) => benchWidget(i));
const keys = objs.map((o) => PREFIX + o.metadata.name);

const random = rng(42);
/** `count` distinct keys under PREFIX with random names (like generateName's), none equal to a `keys` one. */
function randomKeys(count: number, taken: Set<string>): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const k = `${PREFIX}r-${Math.floor(random() * 36 ** 8).toString(36)}`;
    if (taken.has(k)) continue;
    taken.add(k);
    out.push(k);
  }
  return out;
}
const BIG = 100_000;
const taken = new Set<string>();
/** The keys a big store already holds, and the keys then created into it. */
const bigKeys = randomKeys(BIG, taken);
const newKeys = randomKeys(N, taken);
const sortedBigKeys = [...bigKeys].sort();

/** The floor: a Map with a revision counter, storing a copy of each object as a store must. */
class MapFloor {
  rev = 0;
  map = new Map<string, KubeObject>();
  listeners: ((o: KubeObject) => void)[] = [];
  /** Reads are async in the Storage contract, so the floor's are too. */
  async get(key: string): Promise<KubeObject | undefined> {
    return this.map.get(key);
  }
  write(key: string, obj: KubeObject): KubeObject {
    const copy = structuredClone(obj);
    copy.metadata.resourceVersion = String(++this.rev);
    this.map.set(key, copy);
    for (const l of this.listeners) l(copy);
    return copy;
  }
}

const rows: BenchRow[] = [];

// create
{
  const [kapi, base] = await bestOfAlternating(
    5,
    async () => {
      const s = new MemoryStorage({ compaction: false });
      return timeOps(N, async () => {
        for (let i = 0; i < N; i++) await s.create(keys[i] as string, objs[i] as KubeObject);
      });
    },
    async () => {
      const m = new MapFloor();
      return timeOps(N, async () => {
        for (let i = 0; i < N; i++) m.write(keys[i] as string, objs[i] as KubeObject);
      });
    },
  );
  rows.push(['create', kapi, base]);
}

// create into a store already holding BIG objects with random names (the key index is what grows with it)
{
  const big = new MemoryStorage({ compaction: false });
  const bigFloor = new MapFloor();
  for (let i = 0; i < BIG; i++) {
    const o = benchWidget(N + i);
    await big.create(bigKeys[i] as string, o);
    bigFloor.write(bigKeys[i] as string, o);
  }
  let round = 0;
  const create = (i: number) => ({ ...(objs[i] as KubeObject), metadata: { ...(objs[i] as KubeObject).metadata, name: `c${round}-${i}` } });
  // Each round creates N fresh random keys, so the store grows by N per round of each side.
  const [kapi, base] = await bestOfAlternating(
    3,
    async (r) => {
      round = r;
      const ks = randomKeys(N, taken);
      return timeOps(N, async () => {
        for (let i = 0; i < N; i++) await big.create(ks[i] as string, create(i));
      });
    },
    async (r) => {
      round = r;
      const ks = randomKeys(N, taken);
      return timeOps(N, async () => {
        for (let i = 0; i < N; i++) bigFloor.write(ks[i] as string, create(i));
      });
    },
  );
  rows.push([`create into ${BIG.toLocaleString('en-US')} (random names)`, kapi, base]);
  await big.close();
}

const storage = new MemoryStorage({ compaction: false });
const floor = new MapFloor();
for (let i = 0; i < N; i++) {
  await storage.create(keys[i] as string, objs[i] as KubeObject);
  floor.write(keys[i] as string, objs[i] as KubeObject);
}

// get
{
  const [kapi, base] = await bestOfAlternating(
    5,
    () =>
      timeOps(N, async () => {
        for (let i = 0; i < N; i++) await storage.get(keys[i] as string);
      }),
    () =>
      timeOps(N, async () => {
        for (let i = 0; i < N; i++) await floor.get(keys[i] as string);
      }),
  );
  rows.push(['get', kapi, base]);
}

// guaranteedUpdate
{
  const bump = (cur: KubeObject | null): KubeObject => {
    const c = cur as KubeObject & { status: { replicas: number } };
    return { ...c, status: { replicas: c.status.replicas + 1 } };
  };
  const [kapi, base] = await bestOfAlternating(
    5,
    () =>
      timeOps(N, async () => {
        for (let i = 0; i < N; i++) await storage.guaranteedUpdate(keys[i] as string, bump);
      }),
    () =>
      timeOps(N, async () => {
        for (let i = 0; i < N; i++) {
          const k = keys[i] as string;
          floor.write(k, bump(floor.map.get(k) ?? null));
        }
      }),
  );
  rows.push(['guaranteedUpdate', kapi, base]);
}

// list of 10,000 (10 lists per round)
{
  const [kapi, base] = await bestOfAlternating(
    5,
    () =>
      timeOps(10, async () => {
        for (let r = 0; r < 10; r++) {
          const l = await storage.list(PREFIX);
          if (l.items.length !== N) throw new Error(`listed ${l.items.length}`);
        }
      }),
    () =>
      timeOps(10, async () => {
        for (let r = 0; r < 10; r++) {
          const items: KubeObject[] = [];
          for (const [k, v] of floor.map) if (k.startsWith(PREFIX)) items.push(v);
          items.sort((x, y) => ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1));
        }
      }),
  );
  rows.push([`list ${N}`, kapi, base]);
}

/** The floor's watcher: an array and a resolver, the least an async stream can be. */
function floorStream(): { push(o: KubeObject): void; next(): Promise<KubeObject> } {
  const q: KubeObject[] = [];
  let wake: ((o: KubeObject) => void) | undefined;
  return {
    push(o) {
      if (wake) {
        const w = wake;
        wake = undefined;
        w(o);
      } else q.push(o);
    },
    next() {
      const o = q.shift();
      return o ? Promise.resolve(o) : new Promise((r) => (wake = r));
    },
  };
}

/** WATCH_WRITES updates, each delivered to WATCHERS readers; returns events delivered per second. */
async function deliver(write: (i: number) => Promise<unknown> | unknown, streams: { next(): Promise<unknown> }[]): Promise<number> {
  let received = 0;
  const done = Promise.all(
    streams.map(async (w) => {
      for (let i = 0; i < WATCH_WRITES; i++) {
        await w.next();
        received++;
      }
    }),
  );
  const rate = await timeOps(WATCH_WRITES * WATCHERS, async () => {
    for (let i = 0; i < WATCH_WRITES; i++) await write(i);
    await done;
  });
  if (received !== WATCH_WRITES * WATCHERS) throw new Error(`received ${received}`);
  return rate;
}

// watch: events delivered per second to WATCHERS readers
{
  const kapi = await (async () => {
    const from = await storage.currentResourceVersion();
    const watches = Array.from({ length: WATCHERS }, () => storage.watch(PREFIX, { resourceVersion: from }));
    const rate = await deliver(
      (i) => storage.guaranteedUpdate(keys[i] as string, (c) => ({ ...(c as KubeObject), spec: { round: i } })),
      watches.map((w) => w[Symbol.asyncIterator]()),
    );
    for (const w of watches) w.stop();
    return rate;
  })();
  const streams = Array.from({ length: WATCHERS }, () => floorStream());
  for (const st of streams) floor.listeners.push((o) => st.push(o));
  const base = await deliver(
    (i) => floor.write(keys[i] as string, { ...(floor.map.get(keys[i] as string) as KubeObject), spec: { round: i } }),
    streams,
  );
  rows.push([`watch events (${WATCHERS} watchers)`, kapi, base]);
}

printTable({
  title: `@kapi/storage MemoryStorage vs a plain Map (the floor), ops/s, node ${process.version}`,
  notes: ['floor: Map + revision counter + structuredClone per write; async get; one array+resolver stream per watcher'],
  referenceName: 'floor',
  rows,
});
await storage.close();

// ---- the key index: SortedMap vs the splice-based sorted array it replaced ----

/**
 * REFERENCE ONLY, the previous design: one sorted array, binary search, `splice` on every insert and remove (O(n)
 * per write), as MvccStore and WatchCacheStore kept their keys before SortedMap.
 */
class SplicedSortedArray {
  readonly a: string[];
  constructor(sorted: string[]) {
    this.a = sorted;
  }
  lowerBound(key: string): number {
    const a = this.a;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((a[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  insert(key: string): void {
    const i = this.lowerBound(key);
    if (this.a[i] !== key) this.a.splice(i, 0, key);
  }
  remove(key: string): void {
    const i = this.lowerBound(key);
    if (this.a[i] === key) this.a.splice(i, 1);
  }
  keysWithPrefix(prefix: string): string[] {
    const from = this.lowerBound(prefix);
    let end = Math.max(from, this.lowerBound(`${prefix}\uffff`));
    while (end < this.a.length && (this.a[end] as string).startsWith(prefix)) end++;
    return this.a.slice(from, end);
  }
}

const indexRows: BenchRow[] = [];
const fresh = () =>
  SortedMap.fromSorted(
    sortedBigKeys,
    sortedBigKeys.map(() => undefined),
  );
{
  const [kapi, base] = await bestOfAlternating(
    5,
    () => {
      const m = fresh();
      return timeOps(N, () => {
        for (let i = 0; i < N; i++) m.set(newKeys[i] as string, undefined);
      });
    },
    () => {
      const a = new SplicedSortedArray(sortedBigKeys.slice());
      return timeOps(N, () => {
        for (let i = 0; i < N; i++) a.insert(newKeys[i] as string);
      });
    },
  );
  indexRows.push([`insert ${N} into ${BIG}`, kapi, base]);
}
{
  const doomed = bigKeys.slice(0, N);
  const [kapi, base] = await bestOfAlternating(
    5,
    () => {
      const m = fresh();
      return timeOps(N, () => {
        for (let i = 0; i < N; i++) m.delete(doomed[i] as string);
      });
    },
    () => {
      const a = new SplicedSortedArray(sortedBigKeys.slice());
      return timeOps(N, () => {
        for (let i = 0; i < N; i++) a.remove(doomed[i] as string);
      });
    },
  );
  indexRows.push([`remove ${N} from ${BIG}`, kapi, base]);
}
{
  const m = fresh();
  const a = new SplicedSortedArray(sortedBigKeys.slice());
  const LISTS = 20;
  const [kapi, base] = await bestOfAlternating(
    5,
    () =>
      timeOps(LISTS, () => {
        for (let r = 0; r < LISTS; r++) if (m.keysWithPrefix(PREFIX).length !== BIG) throw new Error('short list');
      }),
    () =>
      timeOps(LISTS, () => {
        for (let r = 0; r < LISTS; r++) if (a.keysWithPrefix(PREFIX).length !== BIG) throw new Error('short list');
      }),
  );
  indexRows.push([`keys of a ${BIG} prefix`, kapi, base]);
}
printTable({
  title: `@kapi/storage SortedMap (chunked sorted list) vs one spliced sorted array, ops/s on ${BIG} random keys`,
  notes: ['reference = the previous design, kept in this file: binary search + Array.prototype.splice per write'],
  referenceName: 'spliced',
  rows: indexRows,
});

/**
 * MemoryStorage against the floor: a plain Map doing the same writes and reads, measured in the same run.
 * Figures are ops/s (best of several rounds); the ratio is kapi / floor. Run: `npm run bench` in packages/storage.
 */
import type { KubeObject } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';

const PREFIX = '/registry/widgets/default/';
const N = 10_000;
const WATCHERS = 1_000;
const WATCH_WRITES = 200;

function widget(i: number): KubeObject {
  return {
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Widget',
    metadata: { name: `w-${i}`, namespace: 'default', uid: `uid-${i}`, labels: { app: 'bench', shard: String(i % 10) } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'bench' } },
      template: { image: 'registry.example/widget:1.0', args: ['--a', '--b'] },
    },
    status: { replicas: 3 },
  };
}

const objs = Array.from({ length: N }, (_, i) => widget(i));
const keys = objs.map((o) => PREFIX + o.metadata.name);

async function best(rounds: number, run: () => Promise<number>): Promise<number> {
  let top = 0;
  for (let r = 0; r < rounds; r++) top = Math.max(top, await run());
  return top;
}

async function timeOps(ops: number, fn: () => Promise<void> | void): Promise<number> {
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  return (ops / ms) * 1000;
}

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

const rows: [string, number, number][] = [];

// create
{
  const kapi = await best(3, async () => {
    const s = new MemoryStorage({ compaction: false });
    return timeOps(N, async () => {
      for (let i = 0; i < N; i++) await s.create(keys[i] as string, objs[i] as KubeObject);
    });
  });
  const floor = await best(3, async () => {
    const m = new MapFloor();
    return timeOps(N, async () => {
      for (let i = 0; i < N; i++) m.write(keys[i] as string, objs[i] as KubeObject);
    });
  });
  rows.push(['create', kapi, floor]);
}

const storage = new MemoryStorage({ compaction: false });
const floor = new MapFloor();
for (let i = 0; i < N; i++) {
  await storage.create(keys[i] as string, objs[i] as KubeObject);
  floor.write(keys[i] as string, objs[i] as KubeObject);
}

// get
{
  const kapi = await best(3, () =>
    timeOps(N, async () => {
      for (let i = 0; i < N; i++) await storage.get(keys[i] as string);
    }),
  );
  const base = await best(3, () =>
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
  const kapi = await best(3, () =>
    timeOps(N, async () => {
      for (let i = 0; i < N; i++) await storage.guaranteedUpdate(keys[i] as string, bump);
    }),
  );
  const base = await best(3, () =>
    timeOps(N, async () => {
      for (let i = 0; i < N; i++) {
        const k = keys[i] as string;
        floor.write(k, bump(floor.map.get(k) ?? null));
      }
    }),
  );
  rows.push(['guaranteedUpdate', kapi, base]);
}

// list of 10,000
{
  const kapi = await best(5, () =>
    timeOps(1, async () => {
      const l = await storage.list(PREFIX);
      if (l.items.length !== N) throw new Error(`listed ${l.items.length}`);
    }),
  );
  const base = await best(5, () =>
    timeOps(1, async () => {
      const items: KubeObject[] = [];
      for (const [k, v] of floor.map) if (k.startsWith(PREFIX)) items.push(v);
      items.sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    }),
  );
  rows.push([`list ${N}`, kapi, base]);
}

// watch delivery: WATCH_WRITES writes, each to WATCHERS watchers; figure = events delivered per second.
{
  const from = await storage.currentResourceVersion();
  const watches = Array.from({ length: WATCHERS }, () => storage.watch(PREFIX, { resourceVersion: from }));
  let received = 0;
  const done = Promise.all(
    watches.map(async (w) => {
      const it = w[Symbol.asyncIterator]();
      for (let i = 0; i < WATCH_WRITES; i++) {
        await it.next();
        received++;
      }
    }),
  );
  const kapi = await timeOps(WATCH_WRITES * WATCHERS, async () => {
    for (let i = 0; i < WATCH_WRITES; i++) {
      await storage.guaranteedUpdate(keys[i] as string, (c) => ({ ...(c as KubeObject), spec: { round: i } }));
    }
    await done;
  });
  if (received !== WATCH_WRITES * WATCHERS) throw new Error(`received ${received}`);
  for (const w of watches) w.stop();

  let got = 0;
  for (let i = 0; i < WATCHERS; i++) floor.listeners.push(() => void got++);
  const base = await timeOps(WATCH_WRITES * WATCHERS, async () => {
    for (let i = 0; i < WATCH_WRITES; i++)
      floor.write(keys[i] as string, { ...(floor.map.get(keys[i] as string) as KubeObject), spec: { round: i } });
  });
  rows.push([`watch events (${WATCHERS} watchers)`, kapi, base]);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(12);
console.log(`@kapi/storage MemoryStorage vs a plain Map (the floor), ops/s, node ${process.version}`);
console.log('floor: Map + revision counter + structuredClone per write; async get; watch floor = synchronous callbacks (no streams)');
console.log(`${'operation'.padEnd(32)}${'kapi'.padStart(12)}${'floor'.padStart(12)}   ratio`);
for (const [name, kapi, base] of rows) console.log(`${name.padEnd(32)}${fmt(kapi)}${fmt(base)}   ${(kapi / base).toFixed(2)}`);
await storage.close();

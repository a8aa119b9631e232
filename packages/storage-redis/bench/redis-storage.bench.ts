/**
 * RedisStorage against its floor: the same Lua scripts called directly with ioredis (EVALSHA) plus the JSON work any
 * caller needs, on the same redis-server, in the same run. Figures are ops/s (best of alternating rounds, one
 * operation in flight at a time); the ratio is kapi / floor. Run: `npm run bench` in packages/storage-redis.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@kapi/apimachinery';
import { RedisStorage } from '@kapi/storage-redis';
import { startRedis } from '@kapi/test-servers';
import { Redis } from 'ioredis';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { CREATE, GET, INIT, LIST, UPDATE } from '../src/lua-scripts.ts';

const N = 2000;
const ROUNDS = 7;
const DIR = '/registry/widgets/default';

const objs = Array.from({ length: N }, (_, i) => benchWidget(i));
const keys = objs.map((o) => `${DIR}/${o.metadata.name}`);

/** The floor: one EVALSHA per operation on a plain ioredis client, and the JSON encoding/decoding a caller needs. */
class Floor {
  readonly redis: Redis;
  readonly prefix: string;
  epoch = '';
  constructor(url: string, prefix: string) {
    this.redis = new Redis(url);
    this.prefix = prefix;
  }
  async init(): Promise<void> {
    const r = (await this.redis.eval(INIT.lua, 0, this.prefix, '', randomUUID(), 0)) as unknown[];
    this.epoch = String(r[0]);
    // Cache the scripts server-side so the timed calls are EVALSHA only.
    for (const s of [CREATE, GET, UPDATE, LIST]) await this.redis.script('LOAD', s.lua);
  }
  #run(sha: string, ...args: (string | number)[]): Promise<unknown[]> {
    return this.redis.evalsha(sha, 0, this.prefix, this.epoch, ...args) as Promise<unknown[]>;
  }
  /** Returns the stored object as a private copy (decoded from what was stored), as Storage.create does. */
  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    const json = JSON.stringify(obj);
    const r = await this.#run(CREATE.sha, key, json, 0);
    const o = JSON.parse(json) as KubeObject;
    o.metadata.resourceVersion = String(r[1]);
    return o;
  }
  async get(key: string): Promise<KubeObject> {
    const r = await this.#run(GET.sha, key, 0, 0);
    const o = JSON.parse(r[3] as string) as KubeObject;
    o.metadata.resourceVersion = String(r[2]);
    return o;
  }
  async update(key: string, mutate: (o: KubeObject) => KubeObject): Promise<KubeObject> {
    const g = await this.#run(GET.sha, key, 0, 0);
    const next = mutate(JSON.parse(g[3] as string) as KubeObject);
    const json = JSON.stringify(next);
    const r = await this.#run(UPDATE.sha, key, g[2] as number, json);
    const o = JSON.parse(json) as KubeObject;
    o.metadata.resourceVersion = String(r[1]);
    return o;
  }
  /** The whole directory, 1000 objects per script call like RedisStorage's default batch. */
  async list(): Promise<KubeObject[]> {
    const items: KubeObject[] = [];
    let start = `${DIR}/`;
    let at = 0;
    for (;;) {
      const r = await this.#run(LIST.sha, start, `${DIR}/`, at, 0, 1000, 0);
      at = r[1] as number;
      let last = '';
      for (let i = 4; i + 2 < r.length; i += 3) {
        const o = JSON.parse(r[i + 2] as string) as KubeObject;
        o.metadata.resourceVersion = String(r[i + 1]);
        items.push(o);
        last = r[i] as string;
      }
      if (r[2] !== 1) return items;
      start = `${last}\u0000`;
    }
  }
}

const server = await startRedis();
try {
  const rows: BenchRow[] = [];
  const storages: RedisStorage[] = [];
  const floors: Floor[] = [];
  const newStorage = () => {
    const s = new RedisStorage({ url: server.url, prefix: `bench-${randomUUID()}`, compactionIntervalMs: 0 });
    storages.push(s);
    return s;
  };
  const newFloor = async () => {
    const f = new Floor(server.url, `floor-${randomUUID()}`);
    await f.init();
    floors.push(f);
    return f;
  };

  // create: a fresh key space each round
  {
    const [kapi, floor] = await bestOfAlternating(
      ROUNDS,
      async () => {
        const s = newStorage();
        await s.currentResourceVersion();
        return timeOps(N, async () => {
          for (let i = 0; i < N; i++) await s.create(keys[i] as string, objs[i] as KubeObject);
        });
      },
      async () => {
        const f = await newFloor();
        return timeOps(N, async () => {
          for (let i = 0; i < N; i++) await f.create(keys[i] as string, objs[i] as KubeObject);
        });
      },
    );
    rows.push(['create', kapi, floor]);
  }

  const storage = storages[storages.length - 1] as RedisStorage;
  const floor = floors[floors.length - 1] as Floor;

  // get
  {
    const [kapi, base] = await bestOfAlternating(
      ROUNDS,
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

  // guaranteedUpdate: read, change status, compare-and-set
  {
    const bump = (cur: KubeObject | null): KubeObject => {
      const c = cur as KubeObject & { status: { replicas: number } };
      return { ...c, status: { replicas: c.status.replicas + 1 } };
    };
    const [kapi, base] = await bestOfAlternating(
      ROUNDS,
      () =>
        timeOps(N, async () => {
          for (let i = 0; i < N; i++) await storage.guaranteedUpdate(keys[i] as string, bump);
        }),
      () =>
        timeOps(N, async () => {
          for (let i = 0; i < N; i++) await floor.update(keys[i] as string, bump);
        }),
    );
    rows.push(['guaranteedUpdate', kapi, base]);
  }

  // list of the whole directory
  {
    const lists = 10;
    const [kapi, base] = await bestOfAlternating(
      ROUNDS,
      () =>
        timeOps(lists, async () => {
          for (let r = 0; r < lists; r++) {
            const l = await storage.list(DIR);
            if (l.items.length !== N) throw new Error(`listed ${l.items.length}`);
          }
        }),
      () =>
        timeOps(lists, async () => {
          for (let r = 0; r < lists; r++) {
            const items = await floor.list();
            if (items.length !== N) throw new Error(`listed ${items.length}`);
          }
        }),
    );
    rows.push([`list ${N}`, kapi, base]);
  }

  printTable({
    title: `@kapi/storage-redis RedisStorage vs the same Lua scripts called directly (the floor), ops/s, node ${process.version}`,
    notes: [
      `redis-server on loopback; one operation in flight; ${N} objects of ~${JSON.stringify(objs[0]).length} bytes; best of ${ROUNDS} alternating rounds`,
    ],
    referenceName: 'floor',
    rows,
  });
  for (const s of storages) await s.close();
  for (const f of floors) f.redis.disconnect();
} finally {
  await server.stop();
}

/**
 * What a consistent read and a write cost through the Cacher, next to one raw request of the same kind to the same
 * backend, in one run: a consistent GET (resourceVersion "") of a quiet kind — one that has had no write for a while —
 * vs a raw read of that key; a create through the Cacher vs a raw compare-and-put. On etcd (started here with its own
 * default 10-minute progress interval, as in production) a consistent read is served from the cache only when etcd
 * answers progress requests in order (3.4.31+ / 3.5.13+), else it is one etcd range; on Redis and memory it is the
 * backend's current revision (one round trip) and then the cache. Figures are ops/s with CONCURRENCY requests in
 * flight, best of ROUNDS alternating rounds; ratio = kapi / raw (1.00 = one raw round trip each).
 * Run: `npm run bench` in packages/watchcache (starts and stops its own etcd and redis-server).
 */
import type { KubeObject } from '@kapi/apimachinery';
import { MemoryStorage, type Storage } from '@kapi/storage';
import { EtcdStorage } from '@kapi/storage-etcd';
import { RedisStorage } from '@kapi/storage-redis';
import { startEtcd, startRedis } from '@kapi/test-servers';
import { Redis } from 'ioredis';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import { EtcdClient } from '../../storage-etcd/src/client/etcd-client.ts';
import { Cacher } from '../src/index.ts';

const N = 1000;
const ROUNDS = 5;
const CONCURRENCY = 16;
const PREFIX = '/registry/widgets';
const DIR = `${PREFIX}/default/`;

const objs = Array.from({ length: N }, (_, i) => benchWidget(i));
const names = objs.map((o) => o.metadata.name as string);
const rate = (op: (i: number) => Promise<unknown>): Promise<number> => rateWithConcurrency(N, CONCURRENCY, op);

/** A Cacher over `storage` holding a few quiet widgets; then another kind is written, so the backend moved on. */
async function quietCacher(storage: Storage): Promise<Cacher> {
  const cacher = new Cacher({ storage, resourcePrefix: PREFIX });
  await cacher.ready();
  for (let i = 0; i < 10; i++) await cacher.create(DIR + names[i], objs[i] as KubeObject);
  await storage.create('/registry/gadgets/default/g', benchWidget(0));
  return cacher;
}

const consistentGet = (cacher: Cacher) => () =>
  rate(async (i) => {
    if (!(await cacher.get(DIR + names[i % 10], { resourceVersion: '' }))) throw new Error('missing');
  });
/** Another kind is written, then the quiet kind read: the cache must learn that nothing it holds changed. */
const afterOtherWrite = (storage: Storage, read: (i: number) => Promise<unknown>) => (round: number) =>
  rate(async (i) => {
    await storage.create(`/registry/gadgets/r${round}/${names[i]}`, objs[i] as KubeObject);
    if (!(await read(i))) throw new Error('missing');
  });
const creates = (cacher: Cacher, tag: string) => (round: number) =>
  rate((i) => cacher.create(`${PREFIX}/${tag}${round}/${names[i]}`, objs[i] as KubeObject));

const rows: BenchRow[] = [];
const notes: string[] = [];

// ---- etcd ----
const etcd = await startEtcd({ progressNotifyInterval: '10m' });
const etcdStorage = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: '/bench' });
const raw = new EtcdClient({ endpoints: [etcd.endpoint], requestTimeoutMs: 10_000 });
try {
  const prompt = await etcdStorage.checkPromptWatchProgress();
  const { version } = await raw.status();
  notes.push(
    `etcd ${version}: consistent reads ${prompt ? 'served from the cache' : 'read from etcd (no in-order progress requests before 3.4.31 / 3.5.13)'}`,
  );
  const cacher = await quietCacher(etcdStorage);
  const rawKey = (name: string) => Buffer.from(`/bench${DIR}${name}`);
  rows.push([
    'etcd: consistent GET, quiet kind',
    ...(await bestOfAlternating(ROUNDS, consistentGet(cacher), () =>
      rate(async (i) => {
        const kv = (await raw.range({ key: rawKey(names[i % 10] as string) })).kvs[0];
        if (!kv) throw new Error('missing');
        return JSON.parse(kv.value.toString('utf8'));
      }),
    )),
  ]);
  const rawGet = async (i: number) => {
    const kv = (await raw.range({ key: rawKey(names[i % 10] as string) })).kvs[0];
    return kv && JSON.parse(kv.value.toString('utf8'));
  };
  rows.push([
    'etcd: other kind written, then consistent GET',
    ...(await bestOfAlternating(
      ROUNDS,
      afterOtherWrite(etcdStorage, (i) => cacher.get(DIR + names[i % 10], { resourceVersion: '' })),
      (round) => afterOtherWrite(etcdStorage, rawGet)(round + ROUNDS),
    )),
  ]);
  rows.push([
    'etcd: create',
    ...(await bestOfAlternating(ROUNDS, creates(cacher, 'c'), (round) =>
      rate(async (i) => {
        const key = Buffer.from(`/bench-raw${PREFIX}/r${round}/${names[i]}`);
        const res = await raw.txn({
          compare: [{ key, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
          success: [{ request_put: { key, value: Buffer.from(JSON.stringify(objs[i])), lease: 0 } }],
        });
        if (!res.succeeded) throw new Error('exists');
      }),
    )),
  ]);
  if (cacher.stats().consistentReadFallbacks > 0) throw new Error('a consistent read fell back after the freshness timeout');
  await cacher.close();
} finally {
  raw.close();
  await etcdStorage.close();
  await etcd.stop();
}

// ---- Redis ----
const redis = await startRedis();
const redisStorage = new RedisStorage({ url: redis.url, prefix: 'bench', compactionIntervalMs: 0 });
const rawRedis = new Redis(redis.url);
try {
  const cacher = await quietCacher(redisStorage);
  for (let i = 0; i < 10; i++) await rawRedis.set(`raw:${names[i]}`, JSON.stringify(objs[i]));
  rows.push([
    'redis: consistent GET, quiet kind',
    ...(await bestOfAlternating(ROUNDS, consistentGet(cacher), () =>
      rate(async (i) => {
        const v = await rawRedis.get(`raw:${names[i % 10]}`);
        if (!v) throw new Error('missing');
        return JSON.parse(v);
      }),
    )),
  ]);
  rows.push([
    'redis: other kind written, then consistent GET',
    ...(await bestOfAlternating(
      ROUNDS,
      afterOtherWrite(redisStorage, (i) => cacher.get(DIR + names[i % 10], { resourceVersion: '' })),
      (round) =>
        afterOtherWrite(redisStorage, async (i) => JSON.parse((await rawRedis.get(`raw:${names[i % 10]}`)) ?? 'null'))(round + ROUNDS),
    )),
  ]);
  if (cacher.stats().consistentReadFallbacks > 0) throw new Error('a consistent read fell back after the freshness timeout');
  await cacher.close();
} finally {
  rawRedis.disconnect();
  await redisStorage.close();
  await redis.stop();
}

// ---- memory ----
const memory = new MemoryStorage({ compaction: false });
const memCacher = await quietCacher(memory);
rows.push([
  'memory: consistent GET, quiet kind',
  ...(await bestOfAlternating(ROUNDS, consistentGet(memCacher), () => rate((i) => memory.get(DIR + names[i % 10])))),
]);
await memCacher.close();

printTable({
  title: `@kapi/watchcache consistent reads and creates through the Cacher vs one raw backend request, ops/s, ${CONCURRENCY} in flight, node ${process.version}`,
  notes: [...notes, 'kapi = through the Cacher; raw = one request of the same kind straight to the backend (memory: its own get)'],
  referenceName: 'raw',
  rows,
});

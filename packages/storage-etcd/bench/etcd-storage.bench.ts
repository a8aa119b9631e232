/**
 * EtcdStorage against the raw gRPC client doing the same requests on the same etcd, in the same run: create is the
 * same Txn (create_revision == 0 → put), get a Range of the key, update a Range then the same Txn (mod_revision → put,
 * else range), list a Range of the prefix; both sides encode and decode the JSON. Figures are ops/s with CONCURRENCY
 * requests in flight, best of ROUNDS rounds that alternate between the two so both see the same conditions; the ratio
 * is kapi / raw. Run: `npm run bench` in packages/storage-etcd (starts and stops its own etcd).
 */
import type { KubeObject } from '@kapi/apimachinery';
import { startEtcd } from '@kapi/test-servers';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import { EtcdClient } from '../src/client/etcd-client.ts';
import type { KeyValue } from '../src/client/messages.ts';
import { EtcdStorage } from '../src/index.ts';

const N = 1000;
const ROUNDS = 7;
const CONCURRENCY = 16;
const LISTS = 20;
const DIR = '/registry/widgets/default/';

const objs = Array.from({ length: N }, (_, i) => benchWidget(i));
const names = objs.map((o) => o.metadata.name as string);

/** Runs `op(i)` for i in [0, n) with CONCURRENCY in flight; returns ops/s. */
const rate = (n: number, op: (i: number) => Promise<unknown>): Promise<number> => rateWithConcurrency(n, CONCURRENCY, op);

const etcd = await startEtcd();
const storage = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: '/bench-kapi' });
const client = new EtcdClient({ endpoints: [etcd.endpoint], requestTimeoutMs: 10_000 });
const rawKey = (prefix: string, name: string) => Buffer.from(`/bench-raw${prefix}${name}`);
const rawDecode = (kv: KeyValue): KubeObject => {
  const o = JSON.parse(kv.value.toString('utf8')) as KubeObject;
  o.metadata.resourceVersion = String(kv.mod_revision);
  return o;
};
const rawEncode = (o: KubeObject): Buffer => {
  const { resourceVersion: _, ...metadata } = o.metadata;
  return Buffer.from(JSON.stringify({ ...o, metadata }));
};
const rawCreate = async (key: Buffer, o: KubeObject): Promise<KubeObject> => {
  const value = rawEncode(o);
  const res = await client.txn({
    compare: [{ key, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
    success: [{ request_put: { key, value, lease: 0 } }],
  });
  if (!res.succeeded) throw new Error('exists');
  const out = JSON.parse(value.toString('utf8')) as KubeObject;
  out.metadata.resourceVersion = String(res.header.revision);
  return out;
};

const rows: BenchRow[] = [];
try {
  rows.push([
    'create',
    ...(await bestOfAlternating(
      ROUNDS,
      (round) => rate(N, (i) => storage.create(`/create/${round}/${names[i]}`, objs[i] as KubeObject)),
      (round) => rate(N, (i) => rawCreate(rawKey(`/create/${round}/`, names[i] as string), objs[i] as KubeObject)),
    )),
  ]);

  for (let i = 0; i < N; i++) {
    await storage.create(DIR + names[i], objs[i] as KubeObject);
    await rawCreate(rawKey(DIR, names[i] as string), objs[i] as KubeObject);
  }

  rows.push([
    'get',
    ...(await bestOfAlternating(
      ROUNDS,
      () => rate(N, (i) => storage.get(DIR + names[i])),
      () =>
        rate(N, async (i) => {
          const kv = (await client.range({ key: rawKey(DIR, names[i] as string) })).kvs[0];
          if (!kv) throw new Error('missing');
          return rawDecode(kv);
        }),
    )),
  ]);

  const bump = (cur: KubeObject): KubeObject => {
    const status = cur.status as { replicas: number };
    return { ...cur, status: { replicas: status.replicas + 1 } };
  };
  rows.push([
    'guaranteedUpdate',
    ...(await bestOfAlternating(
      ROUNDS,
      () => rate(N, (i) => storage.guaranteedUpdate(DIR + names[i], (cur) => bump(cur as KubeObject))),
      () =>
        rate(N, async (i) => {
          const key = rawKey(DIR, names[i] as string);
          const kv = (await client.range({ key })).kvs[0];
          if (!kv) throw new Error('missing');
          const value = rawEncode(bump(rawDecode(kv)));
          const res = await client.txn({
            compare: [{ key, target: 'MOD', result: 'EQUAL', mod_revision: kv.mod_revision }],
            success: [{ request_put: { key, value } }],
            failure: [{ request_range: { key } }],
          });
          if (!res.succeeded) throw new Error('conflict');
          const out = JSON.parse(value.toString('utf8')) as KubeObject;
          out.metadata.resourceVersion = String(res.header.revision);
          return out;
        }),
    )),
  ]);

  const start = rawKey(DIR, '');
  const end = rawKey(DIR.slice(0, -1), '0');
  rows.push([
    `list of ${N}`,
    ...(await bestOfAlternating(
      ROUNDS,
      () =>
        rate(LISTS, async () => {
          const l = await storage.list(DIR);
          if (l.items.length !== N) throw new Error(`listed ${l.items.length}`);
        }),
      () =>
        rate(LISTS, async () => {
          const res = await client.range({ key: start, range_end: end });
          const items = res.kvs.map(rawDecode);
          if (items.length !== N) throw new Error(`listed ${items.length}`);
        }),
    )),
  ]);
} finally {
  await storage.close();
  client.close();
  await etcd.stop();
}

printTable({
  title: `@kapi/storage-etcd EtcdStorage vs the raw gRPC client, ops/s, node ${process.version}, etcd 3.4 on tmpfs`,
  notes: [`${CONCURRENCY} requests in flight, ${N} objects, best of ${ROUNDS} alternating rounds`],
  referenceName: 'raw gRPC',
  rows,
});

/**
 * What TLS costs EtcdStorage: the same requests through EtcdStorage to two etcds started side by side, one serving
 * plaintext and one TLS with --client-cert-auth (a CA and certificates made at run time, ECDSA P-256). create is a
 * Txn, get a Range of one key, list a Range of the prefix. Figures are ops/s with CONCURRENCY requests in flight,
 * best of ROUNDS rounds alternating between the two; the ratio is TLS / plaintext. Run: `npm run bench` in
 * packages/storage-etcd (starts and stops its own etcds).
 */
import type { KubeObject } from '@kapi/apimachinery';
import { startEtcd } from '@kapi/test-servers';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import { EtcdStorage } from '../src/index.ts';

const N = 1000;
const ROUNDS = 7;
const CONCURRENCY = 16;
const LISTS = 20;
const DIR = '/registry/widgets/default/';

const objs = Array.from({ length: N }, (_, i) => benchWidget(i));
const names = objs.map((o) => o.metadata.name as string);
const rate = (n: number, op: (i: number) => Promise<unknown>): Promise<number> => rateWithConcurrency(n, CONCURRENCY, op);

const [plainEtcd, tlsEtcd] = await Promise.all([startEtcd(), startEtcd({ tls: true })]);
const creds = tlsEtcd.tls;
if (!creds) throw new Error('startEtcd({ tls: true }) gave no TLS credentials');
const plain = new EtcdStorage({ endpoints: [plainEtcd.endpoint], prefix: '/bench-plain' });
// By name (a DNS SAN), as production usually does; an IP endpoint is checked against the certificate's IP SANs.
const tls = new EtcdStorage({
  endpoints: [tlsEtcd.endpoint.replace('127.0.0.1', 'localhost')],
  tls: { ca: creds.ca.pem, cert: creds.client.cert, key: creds.client.key },
  prefix: '/bench-tls',
});

const rows: BenchRow[] = [];
try {
  rows.push([
    'create',
    ...(await bestOfAlternating(
      ROUNDS,
      (round) => rate(N, (i) => tls.create(`/create/${round}/${names[i]}`, objs[i] as KubeObject)),
      (round) => rate(N, (i) => plain.create(`/create/${round}/${names[i]}`, objs[i] as KubeObject)),
    )),
  ]);
  for (const s of [plain, tls]) for (let i = 0; i < N; i++) await s.create(DIR + names[i], objs[i] as KubeObject);
  rows.push([
    'get',
    ...(await bestOfAlternating(
      ROUNDS,
      () => rate(N, (i) => tls.get(DIR + names[i])),
      () => rate(N, (i) => plain.get(DIR + names[i])),
    )),
  ]);
  const list = (s: EtcdStorage) =>
    rate(LISTS, async () => {
      const l = await s.list(DIR);
      if (l.items.length !== N) throw new Error(`listed ${l.items.length}`);
    });
  rows.push([
    `list of ${N}`,
    ...(await bestOfAlternating(
      ROUNDS,
      () => list(tls),
      () => list(plain),
    )),
  ]);
} finally {
  await Promise.all([plain.close(), tls.close()]);
  await Promise.all([plainEtcd.stop(), tlsEtcd.stop()]);
}

printTable({
  title: `@kapi/storage-etcd EtcdStorage over TLS (client certificate) vs plaintext, ops/s, node ${process.version}, etcd 3.4 on tmpfs`,
  notes: [`${CONCURRENCY} requests in flight, ${N} objects, best of ${ROUNDS} alternating rounds; "kapi" is TLS`],
  referenceName: 'plaintext',
  rows,
});

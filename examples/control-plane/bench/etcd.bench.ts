/**
 * The example control plane on etcd, end to end, against etcd alone, in one run: consistent GETs and a LIST (no
 * resourceVersion) of quiet kinds — nothing writes them while they are read — over HTTPS, each next to one raw etcd
 * range of the same keys; and a POST create of a ConfigMap (namespace check, validation, one etcd transaction) next to
 * one raw etcd transaction that creates a key with a value of the same bytes. The control plane is the one `npm start`
 * runs (startControlPlane: TLS, bearer tokens, watch caches) over EtcdStorage; etcd is started here with its default
 * progress-notify interval (10 minutes), as a user runs it, so a read that waited for etcd's timed progress
 * notification would show as a rate near CONCURRENCY / 3 s (issue 10). The HTTP client is server-core's load worker
 * (bench/load-worker.ts: one HTTP/2 TLS session, CONCURRENCY streams, in a worker thread); the raw requests go through
 * the gRPC client EtcdStorage itself uses, with as many in flight. Figures are requests/s, best of ROUNDS alternating
 * rounds; ratio = control plane / raw etcd (1.00 = the whole server costs nothing beyond etcd's round trip).
 * Run: `npm run bench` in examples/control-plane (starts and stops its own etcd).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { selfSignedServingCertificate } from '@kapi/server-core';
import { EtcdStorage } from '@kapi/storage-etcd';
import { startEtcd } from '@kapi/test-servers';
import type { LoadRun } from '../../../packages/server-core/bench/load-worker.ts';
import { EtcdClient } from '../../../packages/storage-etcd/src/client/etcd-client.ts';
import { prefixRangeEnd } from '../../../packages/storage-etcd/src/keyspace.ts';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import { startControlPlane } from '../src/control-plane.ts';
import { consistentReadFallbacks } from '../src/test-support/consistent-read-fallbacks.ts';

const CONCURRENCY = 32;
const GETS = 2_000;
const LISTS = 1_000;
const CREATES = 1_000;
const ROUNDS = 5;
const PREFIX = '/bench';
const QUIET = 'quiet';
const WIDGETS = 10;

const NAMESPACE_PATH = '/api/v1/namespaces/default';
const WIDGET_PATH = `/apis/example.kapi.dev/v1/namespaces/${QUIET}/widgets/w-0`;
const WIDGETS_PATH = `/apis/example.kapi.dev/v1/namespaces/${QUIET}/widgets`;
const CREATE_PATH = '/api/v1/namespaces/created/configmaps';

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'created', labels: { app: 'bench' } },
  data: { 'app.properties': 'color=blue\nsize=3\n', mode: 'fast' },
});

// ---- etcd, the control plane over it, and a raw client beside it ----
const etcd = await startEtcd({ progressNotifyInterval: '10m' });
const dataDir = await mkdtemp(join(tmpdir(), 'kapi-bench-'));
const storage = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: PREFIX });
const plane = await startControlPlane({ storage, port: 0, dataDir });
const { ca } = await selfSignedServingCertificate({ dir: dataDir, ips: ['127.0.0.1'] });
const raw = new EtcdClient({ endpoints: [etcd.endpoint], requestTimeoutMs: 10_000 });
const worker = new Worker(new URL('../../../packages/server-core/bench/load-worker.ts', import.meta.url));

try {
  const headers = { authorization: `Bearer ${plane.token}` };
  /** One run of the load generator; returns requests/s. */
  const load = (run: Omit<LoadRun, 'url' | 'ca' | 'headers' | 'concurrency'>): Promise<number> =>
    new Promise((resolve, reject) => {
      worker.once('message', (m: { rate?: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.rate as number)));
      worker.postMessage({ ...run, url: plane.url, ca, headers, concurrency: CONCURRENCY } satisfies LoadRun);
    });
  // Fixtures, made in-process (only the measured requests go over HTTP): a quiet namespace holding a few widgets, and
  // the namespace the creates go to.
  const store = (resource: string) => {
    const s = plane.server.store(resource);
    if (!s) throw new Error(`no store for ${resource}`);
    return s;
  };
  for (const name of [QUIET, 'created']) await store('namespaces').create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (let i = 0; i < WIDGETS; i++) {
    await store('widgets.example.kapi.dev').create(
      { namespace: QUIET },
      { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: `w-${i}`, namespace: QUIET }, spec: { replicas: 3 } },
    );
  }
  await store('configmaps').create({ namespace: 'created' }, configMap('probe'));

  // The etcd keys behind those paths, found among the keys the storage wrote (no assumption about its key layout).
  const keys = (
    await raw.range({ key: Buffer.from(`${PREFIX}/`), range_end: prefixRangeEnd(Buffer.from(`${PREFIX}/`)), keys_only: true })
  ).kvs.map((kv) => kv.key.toString('utf8'));
  const keyEnding = (suffix: string): Buffer => {
    const k = keys.find((key) => key.endsWith(suffix));
    if (!k) throw new Error(`no etcd key ends with ${suffix}`);
    return Buffer.from(k);
  };
  const namespaceKey = keyEnding('/namespaces/default');
  const widgetKey = keyEnding(`/${QUIET}/w-0`);
  const widgetsPrefix = Buffer.from(widgetKey.toString('utf8').replace(/w-0$/, ''));
  const probeKey = keyEnding('/created/probe');
  const probeValue = (await raw.range({ key: probeKey })).kvs[0]?.value;
  if (!probeValue) throw new Error('the probe ConfigMap is not in etcd');

  /** n raw etcd ranges of `key` (or of every key under it, with `prefix`), each value decoded as the storage does. */
  const rawRange =
    (n: number, key: Buffer, prefix = false) =>
    () =>
      rateWithConcurrency(n, CONCURRENCY, async () => {
        const res = await raw.range({ key, ...(prefix ? { range_end: prefixRangeEnd(key) } : {}) });
        if (!res.kvs.length) throw new Error('missing');
        for (const kv of res.kvs) JSON.parse(kv.value.toString('utf8'));
      });
  /** n raw etcd transactions creating a new key (create_revision == 0, then put), as EtcdStorage's create does. */
  const rawCreates = (tag: string) =>
    rateWithConcurrency(CREATES, CONCURRENCY, async (i) => {
      const key = Buffer.from(`/bench-raw/configmaps/${tag}-${i}`);
      const res = await raw.txn({
        compare: [{ key, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
        success: [{ request_put: { key, value: probeValue, lease: 0 } }],
      });
      if (!res.succeeded) throw new Error('exists');
    });
  const createBody = JSON.stringify(configMap('@')).split('"@"');
  const creates = (tag: string) =>
    load({
      method: 'POST',
      path: CREATE_PATH,
      bodyPrefix: `${createBody[0]}"${tag}-`,
      bodySuffix: `"${createBody[1]}`,
      n: CREATES,
      status: 201,
    });

  // Warm both sides (JIT, TLS session, gRPC channel) before measuring.
  await load({ method: 'GET', path: NAMESPACE_PATH, n: 500, status: 200 });
  await rawRange(500, namespaceKey)();
  await creates('warm');
  await rawCreates('warm');

  const rows: BenchRow[] = [
    [
      `GET ${NAMESPACE_PATH}`,
      ...(await bestOfAlternating(
        ROUNDS,
        () => load({ method: 'GET', path: NAMESPACE_PATH, n: GETS, status: 200 }),
        rawRange(GETS, namespaceKey),
      )),
    ],
    [
      'GET one widget',
      ...(await bestOfAlternating(
        ROUNDS,
        () => load({ method: 'GET', path: WIDGET_PATH, n: GETS, status: 200 }),
        rawRange(GETS, widgetKey),
      )),
    ],
    [
      `LIST ${WIDGETS} widgets in a namespace`,
      ...(await bestOfAlternating(
        ROUNDS,
        () => load({ method: 'GET', path: WIDGETS_PATH, n: LISTS, status: 200 }),
        rawRange(LISTS, widgetsPrefix, true),
      )),
    ],
    [
      'POST create configmap',
      ...(await bestOfAlternating(
        ROUNDS,
        (round) => creates(`r${round}`),
        (round) => rawCreates(`r${round}`),
      )),
    ],
  ];

  const fallbacks = consistentReadFallbacks(plane.server);
  if (Object.keys(fallbacks).length) throw new Error(`consistent reads waited out the freshness timeout: ${JSON.stringify(fallbacks)}`);
  const { version } = await raw.status();
  printTable({
    title: `@kapi/example-control-plane on etcd vs raw etcd requests: requests/s, ${CONCURRENCY} in flight, node ${process.version}`,
    notes: [
      `etcd ${version} (progress notify every 10m): consistent reads ${
        storage.promptWatchProgress
          ? 'served from the watch cache'
          : 'read from etcd (no in-order progress requests before 3.4.31 / 3.5.13)'
      }`,
      'kapi = the example control plane (startControlPlane over EtcdStorage) over HTTPS, one HTTP/2 session, bearer token;',
      'etcd = the same keys read (range, JSON decoded) or created (txn: create_revision == 0, put) with its gRPC client',
    ],
    referenceName: 'etcd',
    rows,
  });
} finally {
  worker.postMessage('close');
  raw.close();
  await plane.stop();
  await etcd.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * GenericAPIServer over HTTP against the floor, in one run: GET of one ConfigMap and LIST of 100 over keep-alive
 * HTTP/1.1 vs a bare node:http server answering the same bytes; create (POST), update (PUT) and merge patch (PATCH)
 * vs the same Store.create / update / patch calls made in-process (no HTTP); and GET over HTTP/2 TLS (serve() with a self-signed certificate) vs a bare node:http2 server.
 * The client runs in a worker thread (bench/load-worker.ts), the same code for kapi and the reference, so its work
 * stays off the servers' event loop. Figures are requests/s (best of several alternating rounds); ratio = kapi / reference.
 * Each row comes with requests per CPU-second of the serving thread, steadier than wall time on a busy machine and
 * not capped by the client when the reference outruns it.
 * Run: `npm run bench` in packages/server-core.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { ConfigMap, Namespace, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import { GenericAPIServer, listen, selfSignedServingCertificate, serve } from '../src/index.ts';
import type { LoadRun } from './load-worker.ts';

const CONCURRENCY = 32;
const GETS = 3_000;
const LISTS = 1_500;
const CREATES = 2_000;
const UPDATES = 2_000;
/** Updates and patches go round this many existing objects (more than CONCURRENCY, so writes to one rarely overlap). */
const UPDATE_KEYS = 256;
const UPDATE_NAMESPACE = 'updated';
const ROUNDS = 5;
const LIST_SIZE = 100;
const GET_PATH = '/api/v1/namespaces/default/configmaps/c1';
const LIST_PATH = '/api/v1/namespaces/listed/configmaps';
const CREATE_PATH = '/api/v1/namespaces/created/configmaps';

const configMap = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels: { app: 'bench' } },
  data: { 'app.properties': 'color=blue\nsize=3\n', mode: 'fast' },
});
/** A create body with the name left open: `prefix + i + suffix`, so every POST names a new object. */
function createBody(round: string): { bodyPrefix: string; bodySuffix: string } {
  const [prefix, suffix] = JSON.stringify(configMap('created', `${round}-@`)).split('@') as [string, string];
  return { bodyPrefix: prefix, bodySuffix: suffix };
}

/** A PUT body of object `u{key}` whose value `mode` is `round-i`, so every PUT changes it. */
function updateBody(round: string): { bodyPrefix: string; bodySuffix: string } {
  const o = configMap(UPDATE_NAMESPACE, 'u{key}');
  o.data.mode = `${round}-@`;
  const [prefix, suffix] = JSON.stringify(o).split('@') as [string, string];
  return { bodyPrefix: prefix, bodySuffix: suffix };
}
/** A JSON merge patch setting `mode` to `round-i`. */
function patchBody(round: string): { bodyPrefix: string; bodySuffix: string } {
  const [prefix, suffix] = JSON.stringify({ data: { mode: `${round}-@` } }).split('@') as [string, string];
  return { bodyPrefix: prefix, bodySuffix: suffix };
}

// ---- the load generator ----
const worker = new Worker(new URL('./load-worker.ts', import.meta.url));
/** One run of the load generator; returns requests/s. */
function load(run: LoadRun): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { rate?: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.rate as number)));
    worker.postMessage(run);
  });
}

// ---- kapi ----
const kapi = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, ConfigMap] });
await kapi.start();
const kapiHTTP = await listen(kapi.handler);
const kapiURL = kapiHTTP.url;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; type: string; bytes: Buffer }> {
  const res = await fetch(kapiURL + path, {
    method,
    headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()) };
}
for (const ns of ['listed', 'created', UPDATE_NAMESPACE])
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
await call('POST', '/api/v1/namespaces/default/configmaps', configMap('default', 'c1'));
for (let i = 0; i < LIST_SIZE; i++) await call('POST', `${LIST_PATH}`, configMap('listed', `c${i}`));
for (let k = 0; k < UPDATE_KEYS; k++)
  await call('POST', `/api/v1/namespaces/${UPDATE_NAMESPACE}/configmaps`, configMap(UPDATE_NAMESPACE, `u${k}`));
const got = await call('GET', GET_PATH);
const listed = await call('GET', LIST_PATH);
const created = await call('POST', CREATE_PATH, configMap('created', 'probe'));
if (got.status !== 200 || listed.status !== 200 || created.status !== 201) throw new Error('kapi did not serve the fixtures');

// ---- the floor: bare servers answering kapi's bytes ----
type Answer = { status: number; type: string; bytes: Buffer };
const answers = new Map<string, Answer>([
  [`GET ${GET_PATH}`, got],
  [`GET ${LIST_PATH}`, listed],
  [`POST ${CREATE_PATH}`, created],
]);
function bare(req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void {
  const a = answers.get(`${req.method} ${req.url}`);
  // Read the request body (if any) before answering, as kapi must.
  req.on('data', () => {});
  req.on('end', () => {
    if (!a) {
      res.statusCode = 404;
      res.end();
      return;
    }
    // The HTTP/2 compatibility response has the same writeHead; the union of the two overloads is not callable.
    (res as ServerResponse).writeHead(a.status, { 'Content-Type': a.type, 'Content-Length': a.bytes.byteLength });
    res.end(a.bytes);
  });
}
const bareServer: Server = createServer(bare);
await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', r));
const bareURL = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

const get = (url: string, path: string, n: number): LoadRun => ({ url, method: 'GET', path, n, concurrency: CONCURRENCY, status: 200 });
const post = (url: string, round: string): LoadRun => ({
  url,
  method: 'POST',
  path: CREATE_PATH,
  ...createBody(round),
  n: CREATES,
  concurrency: CONCURRENCY,
  status: 201,
});
const UPDATE_PATH = `/api/v1/namespaces/${UPDATE_NAMESPACE}/configmaps/u{key}`;
const put = (url: string, round: string): LoadRun => ({
  url,
  method: 'PUT',
  path: UPDATE_PATH,
  ...updateBody(round),
  keys: UPDATE_KEYS,
  n: UPDATES,
  concurrency: CONCURRENCY,
  status: 200,
});
const patch = (url: string, round: string): LoadRun => ({
  url,
  method: 'PATCH',
  path: UPDATE_PATH,
  contentType: 'application/merge-patch+json',
  ...patchBody(round),
  keys: UPDATE_KEYS,
  n: UPDATES,
  concurrency: CONCURRENCY,
  status: 200,
});

/**
 * One side of a comparison: runs `n` operations and returns their rate, also keeping the best rate per CPU-second of
 * this thread (where the servers and the in-process Store run), which a busy machine and a client-bound reference
 * disturb less than wall time.
 */
function side(n: number, cpuBest: number[], at: 0 | 1, run: () => Promise<number>): Promise<number> {
  return (async () => {
    const c0 = process.threadCpuUsage();
    const rate = await run();
    const c = process.threadCpuUsage(c0);
    cpuBest[at] = Math.max(cpuBest[at] ?? 0, n / ((c.user + c.system) / 1e6));
    return rate;
  })();
}

/** A wall-time row and a server-CPU row for `name`, from ROUNDS alternating rounds of kapi and the reference. */
async function compare(
  name: string,
  n: number,
  kapiRun: (round: number) => Promise<number>,
  referenceRun: (round: number) => Promise<number>,
): Promise<BenchRow[]> {
  const cpu: number[] = [];
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    (round) => side(n, cpu, 0, () => kapiRun(round)),
    (round) => side(n, cpu, 1, () => referenceRun(round)),
  );
  return [
    [name, k, r],
    [`  per server CPU-second`, cpu[0] as number, cpu[1] as number],
  ];
}

const CPU_NOTE = "'per server CPU-second' = requests per second of CPU time of the thread serving them (process.threadCpuUsage)";

// Warm both servers (and the client) before measuring.
for (const url of [kapiURL, bareURL]) {
  await load(get(url, GET_PATH, 2_000));
  await load(get(url, LIST_PATH, 500));
  await load(post(url, 'warm'));
}

const http1: BenchRow[] = [
  ...(await compare(
    `GET one configmap (${got.bytes.byteLength} B)`,
    GETS,
    () => load(get(kapiURL, GET_PATH, GETS)),
    () => load(get(bareURL, GET_PATH, GETS)),
  )),
  ...(await compare(
    `LIST ${LIST_SIZE} configmaps (${Math.round(listed.bytes.byteLength / 1024)} KiB)`,
    LISTS,
    () => load(get(kapiURL, LIST_PATH, LISTS)),
    () => load(get(bareURL, LIST_PATH, LISTS)),
  )),
  ...(await compare(
    'POST create configmap',
    CREATES,
    (r) => load(post(kapiURL, `r${r}`)),
    (r) => load(post(bareURL, `r${r}`)),
  )),
];
printTable({
  title: `@kapi/server-core GenericAPIServer vs a bare node:http server: requests/s over keep-alive HTTP/1.1, node ${process.version}`,
  notes: [
    'kapi = GenericAPIServer (Namespace, ConfigMap; MemoryStorage behind the watch cache; default filter chain) served by listen();',
    `bare = node:http answering kapi's own response bytes and Content-Type; ${CONCURRENCY} keep-alive connections, client in a worker thread`,
    CPU_NOTE,
  ],
  referenceName: 'bare',
  rows: http1,
});

// ---- create, update, merge patch: HTTP vs the Store in-process ----
{
  const store = new Store(ConfigMap, { storage: new MemoryStorage() });
  const ctx = { namespace: UPDATE_NAMESPACE };
  for (let k = 0; k < UPDATE_KEYS; k++) await store.create(ctx, configMap(UPDATE_NAMESPACE, `u${k}`));
  const storeCreates = async (round: string) => {
    const { bodyPrefix, bodySuffix } = createBody(round);
    return rateWithConcurrency(CREATES, CONCURRENCY, (i) =>
      store.create({ namespace: 'created' }, JSON.parse(`${bodyPrefix}${i}${bodySuffix}`)),
    );
  };
  // The same bodies the worker sends, with `{key}` filled in as it does.
  const keyed = (bodyPrefix: string, bodySuffix: string, i: number) =>
    JSON.parse(`${bodyPrefix}${i}${bodySuffix}`.replaceAll('{key}', String(i % UPDATE_KEYS)));
  const storeUpdates = (round: string) => {
    const { bodyPrefix, bodySuffix } = updateBody(round);
    return rateWithConcurrency(UPDATES, CONCURRENCY, (i) => store.update(ctx, `u${i % UPDATE_KEYS}`, keyed(bodyPrefix, bodySuffix, i)));
  };
  const storePatches = (round: string) => {
    const { bodyPrefix, bodySuffix } = patchBody(round);
    return rateWithConcurrency(UPDATES, CONCURRENCY, (i) =>
      store.patch(ctx, `u${i % UPDATE_KEYS}`, keyed(bodyPrefix, bodySuffix, i), 'merge'),
    );
  };
  await storeCreates('warm');
  await storeUpdates('warm');
  await storePatches('warm');
  await load(put(kapiURL, 'warm'));
  await load(patch(kapiURL, 'warm'));
  const rows = [
    ...(await compare(
      'create configmap (POST)',
      CREATES,
      (r) => load(post(kapiURL, `s${r}`)),
      (r) => storeCreates(`s${r}`),
    )),
    ...(await compare(
      'update configmap (PUT)',
      UPDATES,
      (r) => load(put(kapiURL, `s${r}`)),
      (r) => storeUpdates(`s${r}`),
    )),
    ...(await compare(
      'merge-patch configmap (PATCH)',
      UPDATES,
      (r) => load(patch(kapiURL, `s${r}`)),
      (r) => storePatches(`s${r}`),
    )),
  ];
  console.log();
  printTable({
    title: 'writes: POST / PUT / PATCH over HTTP/1.1 vs the Store alone',
    notes: [
      'kapi = the request through the whole server (as above); store = Store.create / update / patch(merge) on JSON.parse of',
      `the same body, in-process over MemoryStorage (no HTTP, no filters, no watch cache); updates and patches go round ${UPDATE_KEYS}`,
      'existing objects, each changing a value: the ratio is the share of a write left once the server is around the Store',
      CPU_NOTE,
    ],
    referenceName: 'store',
    rows,
  });
}

// ---- GET over HTTP/2 TLS ----
{
  const cert = await selfSignedServingCertificate();
  const kapiH2 = await serve(kapi.handler, { tls: { cert: cert.cert, key: cert.key } });
  const bareH2 = createSecureServer({ cert: cert.cert, key: cert.key, allowHTTP1: true }, bare);
  await new Promise<void>((r) => bareH2.listen(0, '127.0.0.1', r));
  const bareH2URL = `https://127.0.0.1:${(bareH2.address() as AddressInfo).port}`;
  const h2 = (url: string, path: string, n: number): LoadRun => ({ ...get(url, path, n), ca: cert.ca });
  await load(h2(kapiH2.url, GET_PATH, 2_000));
  await load(h2(bareH2URL, GET_PATH, 2_000));
  const rows = await compare(
    'GET one configmap',
    GETS,
    () => load(h2(kapiH2.url, GET_PATH, GETS)),
    () => load(h2(bareH2URL, GET_PATH, GETS)),
  );
  console.log();
  printTable({
    title: 'GET over HTTP/2 with TLS: serve() vs a bare node:http2 server',
    notes: [`one TLS session, ${CONCURRENCY} concurrent streams; kapi = serve(handler, { tls }) with selfSignedServingCertificate()`],
    referenceName: 'bare',
    rows,
  });
  await kapiH2.shutdown({ gracePeriodMs: 1000 });
  bareH2.close();
}

worker.postMessage('close');
await kapiHTTP.close();
bareServer.closeAllConnections();
bareServer.close();
await kapi.shutdown();

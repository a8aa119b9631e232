/**
 * proxyRequest (kube's upgrade-aware proxy, as the aggregator and the proxy subresource use it) against the floor: a
 * minimal node reverse proxy (request piped to http.request, response head copied, body piped) forwarding to the same
 * remote over the same kind of keep-alive agent. Both front servers are plain HTTP/1.1 on loopback; the remote answers
 * a fixed JSON body (GET) or echoes the body's length (POST). The client runs in a worker thread (bench/load-worker.ts).
 * Figures are requests/s (best of several alternating rounds), with requests per CPU-second of the proxy's thread.
 * Run: `node --conditions=@kapi/source bench/proxy.bench.ts` in packages/server-core.
 */
import { Agent, createServer, type IncomingMessage, type OutgoingHttpHeaders, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable } from '../../../scripts/bench-kit.ts';
import { proxyRequest, serve } from '../src/index.ts';
import type { LoadRun } from './load-worker.ts';

const CONCURRENCY = 32;
const N = 4_000;
const ROUNDS = 5;
const BODY = Buffer.from(
  JSON.stringify({ kind: 'Flunder', apiVersion: 'wardle.example.com/v1alpha1', metadata: { name: 'f' }, spec: { x: 'y'.repeat(400) } }),
);

const worker = new Worker(new URL('./load-worker.ts', import.meta.url));
function load(run: LoadRun): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { rate?: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.rate as number)));
    worker.postMessage(run);
  });
}

// The remote: a fixed answer to GET, the length of the body to POST.
const remote = createServer((req, res) => {
  let n = 0;
  req.on('data', (c: Buffer) => (n += c.byteLength));
  req.on('end', () => {
    const body = req.method === 'POST' ? Buffer.from(JSON.stringify({ read: n })) : BODY;
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json', 'Content-Length': body.byteLength });
    res.end(body);
  });
});
await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
const remotePort = (remote.address() as AddressInfo).port;
const remoteURL = `http://127.0.0.1:${remotePort}`;

// kapi: serve() + proxyRequest.
const kapiAgent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const kapi = await serve((ctx) => proxyRequest(ctx, { url: new URL(ctx.req.url ?? '/', remoteURL), agent: kapiAgent }));

// The floor: a minimal reverse proxy.
const bareAgent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const bare = createServer((req: IncomingMessage, res: ServerResponse) => {
  const headers: OutgoingHttpHeaders = { ...req.headers };
  delete headers.connection;
  const up = request({ host: '127.0.0.1', port: remotePort, path: req.url, method: req.method, headers, agent: bareAgent }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareURL = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

const get = (url: string): LoadRun => ({
  url,
  method: 'GET',
  path: '/apis/wardle.example.com/v1alpha1/flunders/f',
  n: N,
  concurrency: CONCURRENCY,
  status: 200,
});
const post = (url: string): LoadRun => ({
  url,
  method: 'POST',
  path: '/apis/wardle.example.com/v1alpha1/flunders',
  bodyPrefix: BODY.toString().slice(0, -1),
  bodySuffix: '}',
  n: N,
  concurrency: CONCURRENCY,
  status: 201,
});

function side(cpuBest: number[], at: 0 | 1, run: () => Promise<number>): Promise<number> {
  return (async () => {
    const c0 = process.threadCpuUsage();
    const rate = await run();
    const c = process.threadCpuUsage(c0);
    cpuBest[at] = Math.max(cpuBest[at] ?? 0, N / ((c.user + c.system) / 1e6));
    return rate;
  })();
}
async function compare(name: string, kapiRun: () => Promise<number>, bareRun: () => Promise<number>): Promise<BenchRow[]> {
  const cpu: number[] = [];
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    () => side(cpu, 0, kapiRun),
    () => side(cpu, 1, bareRun),
  );
  return [
    [name, k, r],
    ['  per proxy CPU-second', cpu[0] as number, cpu[1] as number],
  ];
}

for (const url of [kapi.url, bareURL]) {
  await load(get(url));
  await load(post(url));
}
const rows = [
  ...(await compare(
    `GET through the proxy (${BODY.byteLength} B)`,
    () => load(get(kapi.url)),
    () => load(get(bareURL)),
  )),
  ...(await compare(
    'POST through the proxy',
    () => load(post(kapi.url)),
    () => load(post(bareURL)),
  )),
];
printTable({
  title: `@kapi/server-core proxyRequest vs a minimal node reverse proxy: requests/s over keep-alive HTTP/1.1, node ${process.version}`,
  notes: [
    'kapi = serve() + proxyRequest (hop-by-hop headers dropped, X-Forwarded-For, abort propagation, kube error answers);',
    `bare = node:http piping to http.request with the headers copied; both to the same remote, ${CONCURRENCY} keep-alive connections`,
    "'per proxy CPU-second' = requests per second of CPU time of the thread running both proxies and the remote",
  ],
  referenceName: 'bare',
  rows,
});

await worker.terminate();
await kapi.shutdown({ gracePeriodMs: 0 });
kapiAgent.destroy();
bareAgent.destroy();
bare.close();
remote.closeAllConnections();
remote.close();

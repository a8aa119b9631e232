/**
 * Scale-out of GenericAPIServer on one etcd: requests/s and requests per server CPU-second with 1 and 2 node:cluster
 * workers sharing one port (bench/workers-server.ts: each a whole server, Namespace and ConfigMap, with its own watch
 * caches), under the mixed load of the example control plane's workers bench (scripts/mixed-load.ts: per ten requests
 * six GETs of existing ConfigMaps, two creates, two merge PATCHes; 32 HTTP/1.1 keep-alive connections, which the
 * primary hands round-robin to the workers). Plain HTTP, no authentication: the server, not TLS or auth.
 * This process is the cluster primary and the load generator; server CPU is the workers' utime+stime from
 * /proc/<pid>/stat over the measured window. On 2 cores the load generator competes with the workers, which is why
 * requests per server CPU-second is printed next to wall-clock requests/s.
 * Run: `npm run bench` in packages/server-core (part of it), or `node --conditions=@kapi/source bench/workers.bench.ts`.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '@kapi/test-servers';
import { measureWorkers, printWorkersTable, type WorkersRow } from '../../../scripts/mixed-load.ts';

const CONCURRENCY = 32;
const WARMUP_MS = 1_500;
const MEASURE_MS = 6_000;

cluster.setupPrimary({ exec: fileURLToPath(new URL('./workers-server.ts', import.meta.url)) });

/** Forks `n` workers serving keys under `prefix` and waits until each serves; returns them and the shared URL. */
async function startWorkers(n: number, etcd: string, prefix: string): Promise<{ workers: Worker[]; url: string }> {
  const workers: Worker[] = [];
  const urls = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<string>((resolve, reject) => {
          const worker = cluster.fork({ KAPI_BENCH_ETCD: etcd, KAPI_BENCH_PREFIX: prefix });
          workers.push(worker);
          worker.once('message', (m: { url: string }) => resolve(m.url));
          worker.once('exit', (code) => reject(new Error(`worker exited (${code}) before serving`)));
        }),
    ),
  );
  if (new Set(urls).size !== 1) throw new Error(`workers serve different URLs: ${urls.join(', ')}`);
  return { workers, url: urls[0] as string };
}

function stopWorkers(workers: Worker[]): Promise<void> {
  return Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.isDead()) return resolve();
          w.once('exit', () => resolve());
          w.process.kill('SIGTERM');
        }),
    ),
  ).then(() => {});
}

const etcd = await startEtcd();
const rows: WorkersRow[] = [];
try {
  for (const n of [1, 2]) {
    const { workers, url } = await startWorkers(n, etcd.endpoint, `/workers-bench-${n}`);
    try {
      const pids = workers.map((w) => w.process.pid as number);
      rows.push(await measureWorkers({ url }, pids, n, { concurrency: CONCURRENCY, warmupMs: WARMUP_MS, measureMs: MEASURE_MS }));
    } finally {
      await stopWorkers(workers);
    }
  }
} finally {
  await etcd.stop();
}

printWorkersTable(
  `GenericAPIServer workers on one etcd (node:cluster, plain HTTP/1.1 keep-alive, ${CONCURRENCY} in flight, ${MEASURE_MS / 1000} s; per 10 requests: 6 GET, 2 create, 2 merge PATCH; ratios to 1 worker)`,
  [
    `${availableParallelism()} cores; the load generator (this process, also the cluster primary) shares them (its CPU-seconds shown): on 2 cores it competes with the workers, so compare requests per server CPU-second too.`,
  ],
  rows,
);

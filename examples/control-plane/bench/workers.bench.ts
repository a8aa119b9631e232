/**
 * Scale-out of the example control plane on one etcd: requests/s and requests per server CPU-second with 1 and 2
 * workers (`--workers N`: node:cluster workers sharing the port, each a whole server with its own watch caches), under
 * a mixed load — per ten requests six GETs of existing ConfigMaps, two creates and two updates (merge PATCH) — from
 * CONCURRENCY HTTP/1.1 keep-alive connections (the cluster primary hands connections round-robin to the workers; one
 * HTTP/2 session would all go to one). The program is `src/main.ts` as a user runs it, over TLS; etcd is started here.
 * Server CPU is the sum of utime+stime from /proc/<pid>/stat of the primary and every worker over the measured
 * window. The load generator runs in this process on the same machine: on 2 cores it competes with the workers,
 * which is why requests per server CPU-second is printed next to wall-clock requests/s.
 * Run: `npm run bench` in examples/control-plane (part of it), or
 * `node --conditions=@kapi/source bench/workers.bench.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '@kapi/test-servers';
import { measureWorkers, printWorkersTable, type WorkersRow } from '../../../scripts/mixed-load.ts';
import { kubeconfigCredentials, startMain, type TestProcess, waitForServing } from '../src/test-support/test-process.ts';

const CONCURRENCY = 32;
const WARMUP_MS = 1_500;
const MEASURE_MS = 6_000;

interface Running {
  proc: TestProcess;
  url: string;
  token: string;
  ca: string;
  pids: number[];
}

async function startPlane(workers: number, storage: string, dataDir: string): Promise<Running> {
  const proc = startMain(['--port', '0', '--storage', storage, '--data-dir', dataDir, '--workers', String(workers)], {
    inheritStderr: true,
  });
  // A plane that does not come up is not left running behind the error.
  const url = await waitForServing(proc, { count: workers }).catch(async (err: unknown) => {
    await proc.kill();
    throw err;
  });
  const workerPids = [...proc.stdout().matchAll(/\(worker (\d+)\)/g)].map((m) => Number(m[1]));
  const { token, ca } = await kubeconfigCredentials(dataDir);
  return { proc, url, token, ca, pids: [proc.child.pid as number, ...workerPids] };
}

const etcd = await startEtcd();
const rows: WorkersRow[] = [];
try {
  for (const workers of [1, 2]) {
    const dataDir = await mkdtemp(join(tmpdir(), 'kapi-workers-bench-'));
    const plane = await startPlane(workers, `etcd://127.0.0.1:${etcd.port}/workers-bench-${workers}`, dataDir);
    try {
      rows.push(await measureWorkers(plane, plane.pids, workers, { concurrency: CONCURRENCY, warmupMs: WARMUP_MS, measureMs: MEASURE_MS }));
    } finally {
      await plane.proc.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await etcd.stop();
}

printWorkersTable(
  `Workers on one etcd (src/main.ts --workers N, TLS, HTTP/1.1 keep-alive, ${CONCURRENCY} in flight, ${MEASURE_MS / 1000} s; per 10 requests: 6 GET, 2 create, 2 merge PATCH)`,
  [
    `${availableParallelism()} cores; the load generator shares them (its CPU-seconds shown): on 2 cores it competes with the workers, so compare requests per server CPU-second too.`,
  ],
  rows,
);

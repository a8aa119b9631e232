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
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '@kapi/test-servers';
import { measureWorkers, printWorkersTable, type WorkersRow } from '../../../scripts/mixed-load.ts';

const CONCURRENCY = 32;
const WARMUP_MS = 1_500;
const MEASURE_MS = 6_000;
const PACKAGE_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

interface Running {
  child: ChildProcess;
  url: string;
  token: string;
  ca: string;
  pids: number[];
}

async function startPlane(workers: number, storage: string, dataDir: string): Promise<Running> {
  const child = spawn(
    process.execPath,
    ['--conditions=@kapi/source', 'src/main.ts', '--port', '0', '--storage', storage, '--data-dir', dataDir, '--workers', String(workers)],
    { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const deadline = Date.now() + 60_000;
  while ((out.match(/serving https/g)?.length ?? 0) < workers) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`control plane did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /serving (https:\/\/\S+)/.exec(out)?.[1] as string;
  const workerPids = [...out.matchAll(/\(worker (\d+)\)/g)].map((m) => Number(m[1]));
  const kubeconfig = await readFile(join(dataDir, 'kubeconfig'), 'utf8');
  const token = /token: (\S+)/.exec(kubeconfig)?.[1] as string;
  const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1] as string, 'base64').toString();
  return { child, url, token, ca, pids: [child.pid as number, ...workerPids] };
}

function stopPlane(plane: Running): Promise<void> {
  return new Promise((resolve) => {
    plane.child.once('close', () => resolve());
    plane.child.kill('SIGTERM');
  });
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
      await stopPlane(plane);
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

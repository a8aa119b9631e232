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
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '@kapi/test-servers';

const CONCURRENCY = 32;
const WARMUP_MS = 1_500;
const MEASURE_MS = 6_000;
const SEEDS = 200;
const PACKAGE_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds (user + system) a process used so far, from /proc/<pid>/stat. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start at state; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

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

/** The mixed load for `ms` milliseconds; resolves with the requests completed (2xx) and failed. */
async function load(plane: Running, ms: number, tag: string): Promise<{ ok: number; failed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: plane.ca });
  const base = `${plane.url}/api/v1/namespaces/default/configmaps`;
  const call = (method: string, path: string, body?: unknown, type = 'application/json') =>
    new Promise<number>((resolve) => {
      const req = request(
        `${base}${path}`,
        { method, agent, headers: { authorization: `Bearer ${plane.token}`, 'content-type': type, accept: 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  let ok = 0;
  let failed = 0;
  let n = 0;
  const end = Date.now() + ms;
  const loop = async () => {
    while (Date.now() < end) {
      const i = n++;
      const seed = `seed-${i % SEEDS}`;
      const op = i % 10;
      const status =
        op < 6
          ? await call('GET', `/${seed}`)
          : op < 8
            ? await call('POST', '', { metadata: { name: `${tag}-${i}` }, data: { k: 'v'.repeat(200) } })
            : await call('PATCH', `/${seed}`, { data: { n: String(i) } }, 'application/merge-patch+json');
      if (status >= 200 && status < 300) ok++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  agent.destroy();
  return { ok, failed };
}

async function seed(plane: Running): Promise<void> {
  const agent = new Agent({ keepAlive: true, ca: plane.ca });
  for (let i = 0; i < SEEDS; i++)
    await new Promise<void>((resolve, reject) => {
      const req = request(
        `${plane.url}/api/v1/namespaces/default/configmaps`,
        { method: 'POST', agent, headers: { authorization: `Bearer ${plane.token}`, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 201 || res.statusCode === 409 ? resolve() : reject(new Error(`seed: ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ metadata: { name: `seed-${i}` }, data: { k: 'v' } }));
    });
  agent.destroy();
}

const etcd = await startEtcd();
const rows: { workers: number; rate: number; cpu: number; perCpu: number; client: number; failed: number }[] = [];
try {
  for (const workers of [1, 2]) {
    const dataDir = await mkdtemp(join(tmpdir(), 'kapi-workers-bench-'));
    const plane = await startPlane(workers, `etcd://127.0.0.1:${etcd.port}/workers-bench-${workers}`, dataDir);
    try {
      await seed(plane);
      await load(plane, WARMUP_MS, `warm-${workers}`);
      const cpu0 = (await Promise.all(plane.pids.map(cpuSeconds))).reduce((a, b) => a + b, 0);
      const client0 = process.cpuUsage();
      const t0 = performance.now();
      const { ok, failed } = await load(plane, MEASURE_MS, `run-${workers}`);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = (await Promise.all(plane.pids.map(cpuSeconds))).reduce((a, b) => a + b, 0) - cpu0;
      const c = process.cpuUsage(client0);
      rows.push({ workers, rate: ok / seconds, cpu, perCpu: ok / cpu, client: (c.user + c.system) / 1e6, failed });
    } finally {
      await stopPlane(plane);
      await rm(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await etcd.stop();
}

const ref = rows[0];
console.log(
  `Workers on one etcd (src/main.ts --workers N, TLS, HTTP/1.1 keep-alive, ${CONCURRENCY} in flight, ${MEASURE_MS / 1000} s; per 10 requests: 6 GET, 2 create, 2 merge PATCH)`,
);
console.log(
  `${availableParallelism()} cores; the load generator shares them (its CPU-seconds shown): on 2 cores it competes with the workers, so compare requests per server CPU-second too.`,
);
console.log(
  `${'workers'.padEnd(10)}${'req/s'.padStart(10)}${'server CPU-s'.padStart(14)}${'req/CPU-s'.padStart(12)}${'client CPU-s'.padStart(14)}${'failed'.padStart(8)}   ratio req/s   ratio req/CPU-s`,
);
for (const r of rows)
  console.log(
    `${String(r.workers).padEnd(10)}${Math.round(r.rate).toLocaleString('en-US').padStart(10)}${r.cpu.toFixed(2).padStart(14)}${Math.round(r.perCpu).toLocaleString('en-US').padStart(12)}${r.client.toFixed(2).padStart(14)}${String(r.failed).padStart(8)}   ${(r.rate / (ref?.rate ?? 1)).toFixed(2).padStart(11)}   ${(r.perCpu / (ref?.perCpu ?? 1)).toFixed(2).padStart(15)}`,
  );

import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';

/**
 * The mixed ConfigMap load of the workers benches (examples/control-plane and packages/server-core): per ten requests
 * six GETs of existing ConfigMaps, two creates and two merge PATCHes, from `concurrency` HTTP/1.1 keep-alive
 * connections (a node:cluster primary hands connections round-robin to its workers; one HTTP/2 session would all go
 * to one). Also the seeding it reads from, the server CPU it is measured against, and the table both print.
 * Dev-only: imported by relative path and run under Node's type stripping.
 */

/** Existing ConfigMaps `seed-0` … the GETs and PATCHes go round. */
export const MIXED_LOAD_SEEDS = 200;

/** Where the load goes: a server's base URL (http or https), with the CA to trust and a bearer token if it needs them. */
export interface LoadTarget {
  url: string;
  ca?: string;
  token?: string;
}

type Call = (method: string, path: string, body?: unknown, type?: string) => Promise<number>;

/** Requests to the target's default-namespace ConfigMaps over one keep-alive agent; a call resolves with the status (0 if failed). */
function client(target: LoadTarget, maxSockets: number): { call: Call; close: () => void } {
  const secure = target.url.startsWith('https:');
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets, ...(target.ca ? { ca: target.ca } : {}) })
    : new http.Agent({ keepAlive: true, maxSockets });
  const send = secure ? https.request : http.request;
  const base = `${target.url}/api/v1/namespaces/default/configmaps`;
  const call: Call = (method, path, body, type = 'application/json') =>
    new Promise<number>((resolve) => {
      const headers: Record<string, string> = { 'content-type': type, accept: 'application/json' };
      if (target.token) headers.authorization = `Bearer ${target.token}`;
      const req = send(`${base}${path}`, { method, agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  return { call, close: () => agent.destroy() };
}

/** Creates ConfigMaps `seed-0` … `seed-<MIXED_LOAD_SEEDS - 1>` in default (an existing one is fine). */
export async function seedConfigMaps(target: LoadTarget): Promise<void> {
  const { call, close } = client(target, 1);
  try {
    for (let i = 0; i < MIXED_LOAD_SEEDS; i++) {
      const status = await call('POST', '', { metadata: { name: `seed-${i}` }, data: { k: 'v' } });
      if (status !== 201 && status !== 409) throw new Error(`seed: ${status}`);
    }
  } finally {
    close();
  }
}

/** The mixed load for `ms` milliseconds; resolves with the requests completed (2xx) and failed. `tag` names the creates. */
export async function mixedLoad(target: LoadTarget, ms: number, tag: string, concurrency: number): Promise<{ ok: number; failed: number }> {
  const { call, close } = client(target, concurrency);
  let ok = 0;
  let failed = 0;
  let n = 0;
  const end = Date.now() + ms;
  const loop = async () => {
    while (Date.now() < end) {
      const i = n++;
      const seed = `seed-${i % MIXED_LOAD_SEEDS}`;
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
  await Promise.all(Array.from({ length: concurrency }, loop));
  close();
  return { ok, failed };
}

let ticks: number | undefined;
/** CPU seconds (user + system) a process used so far, from /proc/<pid>/stat (Linux). */
export async function processCpuSeconds(pid: number): Promise<number> {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start at state; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

/** One measured run: requests/s, server CPU-seconds and requests per server CPU-second, the client's CPU-seconds. */
export interface WorkersRow {
  workers: number;
  rate: number;
  cpu: number;
  perCpu: number;
  client: number;
  failed: number;
}

/** How a workers bench measures: `concurrency` connections, a warm-up, then the measured window. */
export interface WorkersRun {
  concurrency: number;
  warmupMs: number;
  measureMs: number;
}

/**
 * One row of a workers bench: seeds `target`, warms it up, then runs the mixed load for `run.measureMs`, reading the
 * CPU of the server processes `pids` and of this process (the load generator) around the measured window.
 */
export async function measureWorkers(target: LoadTarget, pids: readonly number[], workers: number, run: WorkersRun): Promise<WorkersRow> {
  const serverCpu = async () => (await Promise.all(pids.map(processCpuSeconds))).reduce((a, b) => a + b, 0);
  await seedConfigMaps(target);
  await mixedLoad(target, run.warmupMs, `warm-${workers}`, run.concurrency);
  const cpu0 = await serverCpu();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const { ok, failed } = await mixedLoad(target, run.measureMs, `run-${workers}`, run.concurrency);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = (await serverCpu()) - cpu0;
  const c = process.cpuUsage(client0);
  return { workers, rate: ok / seconds, cpu, perCpu: ok / cpu, client: (c.user + c.system) / 1e6, failed };
}

/** Prints the title and notes, then a row per worker count with its ratios to the first row (the reference). */
export function printWorkersTable(title: string, notes: string[], rows: WorkersRow[]): void {
  const ref = rows[0];
  console.log(title);
  for (const note of notes) console.log(note);
  console.log(
    `${'workers'.padEnd(10)}${'req/s'.padStart(10)}${'server CPU-s'.padStart(14)}${'req/CPU-s'.padStart(12)}${'client CPU-s'.padStart(14)}${'failed'.padStart(8)}   ratio req/s   ratio req/CPU-s`,
  );
  for (const r of rows)
    console.log(
      `${String(r.workers).padEnd(10)}${Math.round(r.rate).toLocaleString('en-US').padStart(10)}${r.cpu.toFixed(2).padStart(14)}${Math.round(r.perCpu).toLocaleString('en-US').padStart(12)}${r.client.toFixed(2).padStart(14)}${String(r.failed).padStart(8)}   ${(r.rate / (ref?.rate ?? 1)).toFixed(2).padStart(11)}   ${(r.perCpu / (ref?.perCpu ?? 1)).toFixed(2).padStart(15)}`,
    );
}

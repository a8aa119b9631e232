/**
 * What a test server costs, next to references measured in the same run:
 * - start-to-ready: from calling startTestServer to its first answer of GET /readyz (median of N; also with TLS and
 *   with RBAC, whose bootstrap policy is the dearest part of a start), against a bare
 *   GenericAPIServer serving only Namespace (in process, same listener), and against `npm start` (the example control
 *   plane as a process, spawned until its /readyz answers; what envtest-like setups pay).
 * - per-test cost with isolation 'test': start, one request, stop (median of N).
 * - memory per server: RSS and heap growth over 20 live servers, divided by 20 (after a GC; run with --expose-gc).
 * Run: `npm run bench` in packages/testing.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Namespace } from '@kapi/registry';
import { GenericAPIServer, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { startTestServer, type TestServer, type TestServerOptions } from '../src/index.ts';

const N = 30;
const SPAWNS = 3;
const MEMORY_SERVERS = 20;
const ROOT = resolve(import.meta.dirname, '../../..');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

/** One GET /readyz: it must answer 200 (over HTTPS without checking the certificate: a timing, not a test). */
async function ready(url: string): Promise<void> {
  if (url.startsWith('http:')) {
    const res = await fetch(`${url}/readyz`);
    if (res.status !== 200) throw new Error(`/readyz answered ${res.status}`);
    await res.text();
    return;
  }
  await new Promise<void>((resolveReady, reject) => {
    request(`${url}/readyz`, { rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolveReady() : reject(new Error(`/readyz answered ${res.statusCode}`))));
    })
      .on('error', reject)
      .end();
  });
}

async function timeTestServer(options: TestServerOptions = {}): Promise<[ms: number, stop: () => Promise<void>]> {
  const t0 = performance.now();
  const s = await startTestServer(options);
  await ready(s.url);
  return [performance.now() - t0, () => s.stop()];
}

async function timeBareServer(): Promise<[ms: number, stop: () => Promise<void>]> {
  const t0 = performance.now();
  const server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace] });
  await server.start();
  const http = await listen(server.handler);
  await ready(http.url);
  return [performance.now() - t0, () => http.close().then(() => server.shutdown())];
}

/** `npm start` as a process (node, type stripping, the example control plane) until its /readyz answers over HTTPS. */
async function timeControlPlaneProcess(): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kapi-bench-'));
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    ['--conditions=@kapi/source', 'examples/control-plane/src/main.ts', '--port', '0', '--data-dir', dataDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const url = await new Promise<string>((resolveURL, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk;
        const m = /serving (https:\/\/\S+)/.exec(out);
        if (m) resolveURL(m[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`the control plane exited with ${code}`)));
    });
    await ready(url);
    return performance.now() - t0;
  } finally {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Median start-to-ready of two starters, run in alternate iterations so both see the same GC and machine load. */
async function startToReady(
  a: () => Promise<[number, () => Promise<void>]>,
  b: () => Promise<[number, () => Promise<void>]>,
): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < 2 * N; i++) {
    const which = i % 2;
    const [ms, stop] = await (which === 0 ? a : b)();
    (times[which] as number[]).push(ms);
    await stop();
  }
  return [median(times[0]), median(times[1])];
}

async function perTest(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const s = await startTestServer();
    await fetch(`${s.url}/api/v1/namespaces/default/configmaps`).then((r) => r.text());
    await s.stop();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function memoryPerServer(): Promise<{ rss: number; heap: number }> {
  gc();
  const before = process.memoryUsage();
  const servers: TestServer[] = [];
  for (let i = 0; i < MEMORY_SERVERS; i++) servers.push(await startTestServer());
  gc();
  const after = process.memoryUsage();
  await Promise.all(servers.map((s) => s.stop()));
  const mb = (bytes: number) => bytes / MEMORY_SERVERS / 2 ** 20;
  return { rss: mb(after.rss - before.rss), heap: mb(after.heapUsed - before.heapUsed) };
}

// Warm-up: the first start loads and compiles the modules, which a test file pays once.
const firstStart = performance.now();
await (await startTestServer()).stop();
const firstMs = performance.now() - firstStart;
await (await timeBareServer())[1]();
// The first RBAC starts: kube's bootstrap policy goes through code not yet compiled (a test file pays these).
const firstRBAC: number[] = [];
for (let i = 0; i < 3; i++) {
  const [ms, stop] = await timeTestServer({ authorization: 'RBAC' });
  firstRBAC.push(ms);
  await stop();
}

// Memory first, before the timing loops leave freed pages in the process that RSS would not show as growth.
const memory = await memoryPerServer();
gc();
const [testServer, bare] = await startToReady(() => timeTestServer(), timeBareServer);
gc();
const [withTLS, bareTLS] = await startToReady(() => timeTestServer({ tls: true }), timeBareServer);
gc();
const [withRBAC, bareRBAC] = await startToReady(() => timeTestServer({ authorization: 'RBAC' }), timeBareServer);
const processTimes: number[] = [];
for (let i = 0; i < SPAWNS; i++) processTimes.push(await timeControlPlaneProcess());
const controlPlane = median(processTimes);
gc();
const cycle = await perTest();

const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(12);
console.log(`@kapi/testing startTestServer (median of ${N}; process: median of ${SPAWNS}); ratio = startTestServer / reference`);
console.log(`first start in this process (module load + JIT): ${firstMs.toFixed(0)} ms`);
console.log(`first 3 starts with authorization 'RBAC' (after a plain one): ${firstRBAC.map((x) => x.toFixed(0)).join(', ')} ms`);
console.log(`${'measure'.padEnd(44)}${'testing'.padStart(12)}${'reference'.padStart(12)}     ratio   reference`);
const row = (name: string, k: number, r: number, ref: string) =>
  console.log(`${name.padEnd(44)}${ms(k)}${ms(r)}   ${(k / r).toPrecision(2).padStart(7)}   ${ref}`);
row('start to ready (GET /readyz 200)', testServer, bare, 'bare GenericAPIServer, Namespace only');
row('start to ready (GET /readyz 200)', testServer, controlPlane, '`npm start` as a process');
row('start to ready, tls: true', withTLS, bareTLS, 'bare GenericAPIServer, Namespace only');
row("start to ready, authorization: 'RBAC'", withRBAC, bareRBAC, 'bare GenericAPIServer, Namespace only');
row("per test, isolation 'test' (start, GET, stop)", cycle, controlPlane, '`npm start` as a process');
console.log(
  `memory per live server (${MEMORY_SERVERS} servers): RSS ${memory.rss.toFixed(2)} MB, heap ${memory.heap.toFixed(2)} MB${
    (globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc: figures include garbage)'
  }`,
);

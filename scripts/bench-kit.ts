import { type Agent, request } from 'node:http';
import type { KubeObject } from '@kapi/apimachinery';

/**
 * What the storage benchmarks share: the object they store, the timers, the kapi-vs-reference rounds and the table.
 * Dev-only: each package's bench/*.bench.ts imports it by relative path and runs under Node's type stripping.
 */

/** A typical namespaced object with labels, spec and status, so every bench encodes and stores the same shape. */
export function benchWidget(i: number): KubeObject {
  return {
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Widget',
    metadata: { name: `w-${i}`, namespace: 'default', uid: `uid-${i}`, labels: { app: 'bench', shard: String(i % 10) } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'bench' } },
      template: { image: 'registry.example/widget:1.0', args: ['--a', '--b'] },
    },
    status: { replicas: 3 },
  };
}

/** Runs `fn`, which does `ops` operations; returns ops/s. */
export async function timeOps(ops: number, fn: () => Promise<void> | void): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (ops / (performance.now() - t0)) * 1000;
}

/** Runs `op(i)` for i in [0, n) with `concurrency` in flight; returns ops/s. */
export async function rateWithConcurrency(n: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await op(next++);
    }),
  );
  return (n / (performance.now() - t0)) * 1000;
}

/**
 * Best of `rounds` for kapi and the reference, run in alternate rounds so both see the same JIT, GC and server
 * conditions, and with which goes first swapped each round so neither always gets the warmer start.
 */
export async function bestOfAlternating(
  rounds: number,
  kapi: (round: number) => Promise<number>,
  reference: (round: number) => Promise<number>,
): Promise<[kapi: number, reference: number]> {
  let k = 0;
  let r = 0;
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      k = Math.max(k, await kapi(round));
      r = Math.max(r, await reference(round));
    } else {
      r = Math.max(r, await reference(round));
      k = Math.max(k, await kapi(round));
    }
  }
  return [k, r];
}

/** One table row: the operation's name, then kapi's and the reference's ops/s. */
export type BenchRow = [name: string, kapi: number, reference: number];

/** Prints the title, the notes, then `operation  kapi  <referenceName>  ratio` with ratio = kapi / reference. */
export function printTable(table: { title: string; notes?: string[]; referenceName: string; rows: BenchRow[] }): void {
  // The name column fits the longest name with room to spare, and is never narrower than 24.
  const width = Math.max(24, ...table.rows.map(([name]) => name.length + 4));
  const num = (n: number) => Math.round(n).toLocaleString('en-US').padStart(12);
  console.log(table.title);
  for (const note of table.notes ?? []) console.log(note);
  console.log(`${'operation'.padEnd(width)}${'kapi'.padStart(12)}${table.referenceName.padStart(12)}   ratio`);
  for (const [name, kapi, reference] of table.rows) {
    console.log(`${name.padEnd(width)}${num(kapi)}${num(reference)}   ${(kapi / reference).toFixed(2)}`);
  }
}

/**
 * One JSON request over `agent` (keep-alive HTTP/1.1) to `url`'s server; resolves to the parsed answer, rejects when the
 * status is not `status`. What the HTTP benches' clients send: `accept: application/json`, a `bench/1.0` user agent.
 */
export function callJson(
  agent: Agent,
  url: string,
  method: string,
  path: string,
  status: number,
  body?: unknown,
  type = 'application/json',
): Promise<unknown> {
  const u = new URL(url);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: {
          accept: 'application/json',
          'user-agent': 'bench/1.0',
          ...(data !== undefined ? { 'content-type': type, 'content-length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== status) reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
          else resolve(JSON.parse(text));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

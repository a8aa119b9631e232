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
 * `rounds` rounds of kapi and the reference, run alternately so both see the same JIT, GC and server conditions, and
 * with which goes first swapped each round so neither always gets the warmer start: the best of each, and the median
 * of the rounds' own kapi / reference ratios. A round's pair runs back to back, so its ratio cancels what drifts
 * between rounds (load from elsewhere, a growing heap); the median leaves out rounds one side lost to a pause. The
 * ratio of the two bests leans toward whichever side spreads wider, so on a noisy machine the median is the steadier
 * estimate of the ratio.
 */
export async function alternatingRounds(
  rounds: number,
  kapi: (round: number) => Promise<number>,
  reference: (round: number) => Promise<number>,
): Promise<[kapi: number, reference: number, medianRatio: number]> {
  const ks: number[] = [];
  const rs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      ks.push(await kapi(round));
      rs.push(await reference(round));
    } else {
      rs.push(await reference(round));
      ks.push(await kapi(round));
    }
  }
  const ratios = ks.map((k, i) => k / (rs[i] as number)).sort((a, b) => a - b);
  const mid = ratios.length >> 1;
  const median = ratios.length % 2 ? (ratios[mid] as number) : ((ratios[mid - 1] as number) + (ratios[mid] as number)) / 2;
  return [Math.max(...ks), Math.max(...rs), median];
}

/** Best of `rounds` for kapi and the reference, run as alternatingRounds runs them. */
export async function bestOfAlternating(
  rounds: number,
  kapi: (round: number) => Promise<number>,
  reference: (round: number) => Promise<number>,
): Promise<[kapi: number, reference: number]> {
  const [k, r] = await alternatingRounds(rounds, kapi, reference);
  return [k, r];
}

/**
 * One table row: the operation's name, then kapi's and the reference's ops/s, and optionally the median of the
 * rounds' ratios (alternatingRounds).
 */
export type BenchRow = [name: string, kapi: number, reference: number, medianRatio?: number];

/**
 * Prints the title, the notes, then `operation  kapi  <referenceName>  ratio` with ratio = kapi / reference, and a
 * `median` column (the median of the rounds' ratios) when the rows carry one.
 */
export function printTable(table: { title: string; notes?: string[]; referenceName: string; rows: BenchRow[] }): void {
  // The name column fits the longest name with room to spare, and is never narrower than 24.
  const width = Math.max(24, ...table.rows.map(([name]) => name.length + 4));
  const num = (n: number) => Math.round(n).toLocaleString('en-US').padStart(12);
  const medians = table.rows.some((row) => row[3] !== undefined);
  console.log(table.title);
  for (const note of table.notes ?? []) console.log(note);
  console.log(`${'operation'.padEnd(width)}${'kapi'.padStart(12)}${table.referenceName.padStart(12)}   ratio${medians ? '   median' : ''}`);
  for (const [name, kapi, reference, median] of table.rows) {
    const m = medians ? `     ${median === undefined ? '   -' : median.toFixed(2)}` : '';
    console.log(`${name.padEnd(width)}${num(kapi)}${num(reference)}   ${(kapi / reference).toFixed(2)}${m}`);
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

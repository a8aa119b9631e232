/**
 * Custom resources against defineResource kinds, in one run, on one in-process chain (an APIExtensions server first,
 * delegating to a control plane serving Namespace; MemoryStorage behind the watch caches): POST create and LIST of
 * 2,000 objects over keep-alive HTTP/1.1, of a CRD's kind vs the same-shaped kind declared with `defineResource`
 * (the CRD is that kind exported with `customResourceDefinitionOf`, in another group), both served by the chain's first
 * server. Figures are requests/s (best of alternating rounds); ratio = CRD / defineResource. The client is
 * server-core's load generator (bench/load-worker.ts) in a worker thread, the same code for both kinds.
 * Then the time from a CRD's create (POST) to the first create of its kind answered 201, next to the time from
 * addResource of the equivalent defineResource kind on the same server to the same first 201 (see below).
 * Run: `npm run bench` in packages/apiextensions.
 */
import { Worker } from 'node:worker_threads';
import { customResourceDefinitionOf, defineResource, Namespace } from '@kapi/registry';
import { GenericAPIServer, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { z } from 'zod';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import type { LoadRun } from '../../server-core/bench/load-worker.ts';
import { APIExtensions } from '../src/server/apiextensions.ts';

const CONCURRENCY = 32;
const CREATES = 2_000;
const ROUNDS = 5;
const LIST_SIZE = 2_000;
const LISTS = 60;
const LIST_CONCURRENCY = 4;
const FIRST_SERVED = 7;

/** A Gadget kind: defaults, bounds, a pattern, an enum, a list, status and scale, printer columns. */
function gadget(group: string, plural = 'gadgets', kind = 'Gadget') {
  return defineResource({
    group,
    kind,
    plural,
    namespaced: true,
    versions: [
      {
        name: 'v1',
        schema: z.object({
          spec: z.object({
            replicas: z.int().min(0).max(100).default(1),
            image: z
              .string()
              .regex(/^[a-z0-9./:-]+$/u)
              .max(200),
            color: z.enum(['red', 'green', 'blue']).optional(),
            args: z.array(z.string()).max(20).optional(),
          }),
          status: z.object({ replicas: z.int().optional() }).optional(),
        }),
      },
    ],
    subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
    printerColumns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Image', type: 'string', jsonPath: '.spec.image' },
    ],
  });
}
const NATIVE = 'native.bench.kapi.dev';
const CUSTOM = 'custom.bench.kapi.dev';
const body = (group: string, name: string, kind = 'Gadget') => ({
  apiVersion: `${group}/v1`,
  kind,
  metadata: { name, labels: { app: 'bench' } },
  spec: { image: 'registry.example/gadget:1.0', color: 'blue', args: ['--a', '--b'] },
});
const path = (group: string, ns: string, plural = 'gadgets') => `/apis/${group}/v1/namespaces/${ns}/${plural}`;

// ---- the chain ----
const storage = new MemoryStorage();
const controlPlane = new GenericAPIServer({ storage, resources: [Namespace] });
const chain = new GenericAPIServer({
  storage,
  closeStorage: false,
  resources: [],
  providers: [new APIExtensions({ retryAfterMs: 50 }).provider()],
  delegate: controlPlane,
});
await chain.start();
const http = await listen(chain.handler);
const url = http.url;

async function send(method: string, to: string, payload?: unknown): Promise<number> {
  const res = await fetch(url + to, {
    method,
    headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { body: JSON.stringify(payload) } : {}),
  });
  await res.arrayBuffer();
  return res.status;
}
async function expectStatus(status: number, method: string, to: string, payload?: unknown): Promise<void> {
  const got = await send(method, to, payload);
  if (got !== status) throw new Error(`${method} ${to}: ${got}, expected ${status}`);
}
/** Repeats a create until it is answered 201 (404 while the kind is not yet routed). */
async function firstCreate(to: string, payload: unknown): Promise<void> {
  for (;;) {
    const status = await send('POST', to, payload);
    if (status === 201) return;
    if (status !== 404) throw new Error(`POST ${to}: ${status}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

for (const ns of ['listed', 'created', 'first'])
  await expectStatus(201, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
await chain.addResource(gadget(NATIVE));
await expectStatus(201, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', customResourceDefinitionOf(gadget(CUSTOM)));
await firstCreate(path(CUSTOM, 'listed'), body(CUSTOM, 'probe'));
await expectStatus(201, 'POST', path(NATIVE, 'listed'), body(NATIVE, 'probe'));
await rateWithConcurrency(LIST_SIZE - 1, 16, async (i) => {
  await expectStatus(201, 'POST', path(CUSTOM, 'listed'), body(CUSTOM, `g${i}`));
  await expectStatus(201, 'POST', path(NATIVE, 'listed'), body(NATIVE, `g${i}`));
});
const listed = async (group: string) => ((await (await fetch(url + path(group, 'listed'))).json()) as { items: unknown[] }).items.length;
if ((await listed(CUSTOM)) !== LIST_SIZE || (await listed(NATIVE)) !== LIST_SIZE) throw new Error('the lists are not complete');

// ---- the load generator (server-core's) ----
const worker = new Worker(new URL('../../server-core/bench/load-worker.ts', import.meta.url));
function load(run: LoadRun): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { rate?: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.rate as number)));
    worker.postMessage(run);
  });
}
const post = (group: string, round: string): LoadRun => {
  const [bodyPrefix, bodySuffix] = JSON.stringify(body(group, `${round}-@`)).split('@') as [string, string];
  return { url, method: 'POST', path: path(group, 'created'), bodyPrefix, bodySuffix, n: CREATES, concurrency: CONCURRENCY, status: 201 };
};
const list = (group: string, n = LISTS): LoadRun => ({
  url,
  method: 'GET',
  path: path(group, 'listed'),
  n,
  concurrency: LIST_CONCURRENCY,
  status: 200,
});

// Warm both kinds (and the client) before measuring.
for (const group of [CUSTOM, NATIVE]) {
  await load(post(group, 'warm'));
  await load(list(group, 10));
}
/**
 * A wall-time row and a server-CPU row (requests per CPU-second of this thread, where the chain runs: steadier than
 * wall time on a busy machine), from ROUNDS alternating rounds of the CRD's kind and the defineResource kind.
 */
async function compare(
  name: string,
  n: number,
  custom: (round: number) => LoadRun,
  native: (round: number) => LoadRun,
): Promise<BenchRow[]> {
  const cpu = [0, 0];
  const side = async (at: 0 | 1, run: LoadRun) => {
    const c0 = process.threadCpuUsage();
    const rate = await load(run);
    const c = process.threadCpuUsage(c0);
    cpu[at] = Math.max(cpu[at] as number, n / ((c.user + c.system) / 1e6));
    return rate;
  };
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    (round) => side(0, custom(round)),
    (round) => side(1, native(round)),
  );
  return [
    [name, k, r],
    ['  per server CPU-second', cpu[0] as number, cpu[1] as number],
  ];
}
const rows: BenchRow[] = [
  ...(await compare(
    'POST create',
    CREATES,
    (r) => post(CUSTOM, `r${r}`),
    (r) => post(NATIVE, `r${r}`),
  )),
  ...(await compare(
    `LIST ${LIST_SIZE.toLocaleString('en-US')}`,
    LISTS,
    () => list(CUSTOM),
    () => list(NATIVE),
  )),
];
printTable({
  title: `@kapi/apiextensions: custom resources vs defineResource kinds, requests/s over keep-alive HTTP/1.1, node ${process.version}`,
  notes: [
    'kapi = a CRD (customResourceDefinitionOf the kind) served by an APIExtensions server; defineResource = the same kind in another',
    `group, added with addResource to that server; MemoryStorage, watch caches; ${CONCURRENCY} connections for POST, ${LIST_CONCURRENCY} for LIST`,
    "'per server CPU-second' = requests per second of CPU time of the thread serving them (process.threadCpuUsage)",
  ],
  referenceName: 'defineRes',
  rows,
});

// ---- from a new kind to its first object ----
// The reference is addResource of the same kind as a defineResource definition on the same server: the part of a
// CRD's way to serving that GenericAPIServer does (a Store, a watch cache synced, routes, discovery and OpenAPI). The
// ratio is then what the CRD path adds on top: the CRD's own create (schema checks), the naming and establishing
// controllers writing status, and the serving controller turning the CRD into a definition. Both are timed until a
// create is answered 201, polled by the same client with the same 1 ms pause.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const crdTimes: number[] = [];
const addTimes: number[] = [];
for (let i = 0; i < FIRST_SERVED; i++) {
  const kind = (prefix: string) => ({ group: `${prefix}${i}.bench.kapi.dev`, plural: `things${i}`, kind: `Thing${i}` });
  const crd = kind('crd');
  const native = kind('add');
  const t0 = performance.now();
  await expectStatus(
    201,
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    customResourceDefinitionOf(gadget(crd.group, crd.plural, crd.kind)),
  );
  await firstCreate(path(crd.group, 'first', crd.plural), body(crd.group, 'a', crd.kind));
  crdTimes.push(performance.now() - t0);
  const t1 = performance.now();
  await chain.addResource(gadget(native.group, native.plural, native.kind));
  await firstCreate(path(native.group, 'first', native.plural), body(native.group, 'a', native.kind));
  addTimes.push(performance.now() - t1);
}
const [crdMs, addMs] = [median(crdTimes), median(addTimes)];
console.log();
console.log(`new kind → first create answered 201 (ms, median of ${FIRST_SERVED} kinds; ratio = CRD / addResource)`);
console.log('kapi = POST of a CRD; addResource = GenericAPIServer.addResource of the same kind as a defineResource definition');
console.log(`${'operation'.padEnd(32)}${'CRD ms'.padStart(12)}${'addRes ms'.padStart(12)}   ratio`);
console.log(
  `${'create kind → first CR 201'.padEnd(32)}${crdMs.toFixed(1).padStart(12)}${addMs.toFixed(1).padStart(12)}   ${(crdMs / addMs).toFixed(2)}`,
);

worker.postMessage('close');
await http.close();
// The chain's first server shuts its delegate down.
await chain.shutdown();

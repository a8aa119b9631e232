/**
 * What server-side apply costs a client: ConfigMap writes over keep-alive HTTP/1.1 on loopback through a
 * GenericAPIServer that records metadata.managedFields, next to the same writes through the
 * GenericAPIServer as it was before server-side apply. kube has no switch that turns the field manager off, so the
 * "before" server is kapi at PRE_SSA: its registry and server-core sources extracted from git into the gitignored
 * .kapi/ (with a node_modules of their own so the old server-core imports the old registry) and run against today's
 * other packages. Rows: create (POST), update (PUT of the object as created, managedFields included, as clients
 * send it back), merge patch, and apply (a second apply changing one value; the old server answered apply with 415,
 * so its reference is the old merge patch). The client runs in this process with CONCURRENCY requests in flight,
 * the same for both servers. Figures are requests/s, best of alternating rounds; ratio = with / before, and median =
 * the median of the rounds' own ratios (alternatingRounds: steadier on a noisy machine than the ratio of the bests).
 * The rows run on any storage: bench/managed-fields.bench.ts runs them on MemoryStorage, the control plane's
 * bench/managed-fields-backends.bench.ts on etcd and Redis.
 *
 * A second table compares the same server with its field manager switched off (a bench-only switch on the class:
 * objects then carry no managedFields at all, as before server-side apply). PRE_SSA's registry and server-core also
 * lack every check added to them since, which counts against the first table's ratio; the second isolates what
 * managedFields cost today's write path — the field manager's work and the entries' bytes both ways.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigMap, Namespace } from '@kapi/registry';
import type { Storage } from '@kapi/storage';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { alternatingRounds, callJson, printTable, rateWithConcurrency } from '../../../scripts/bench-kit.ts';
import { FieldManager } from '../../registry/src/managed-fields/field-manager.ts';
import { GenericAPIServer, listen } from '../src/index.ts';

/** The last commit before server-side apply (issue 15), as the registry's managed-fields bench names it. */
export const PRE_SSA = 'c6721b6a';
const ROUNDS = 11;
const N = 1_500;
const CONCURRENCY = 16;
const KEYS = 5;

const here = dirname(fileURLToPath(import.meta.url));

type ServerModule = { GenericAPIServer: typeof GenericAPIServer; listen: typeof listen };
type RegistryModule = { ConfigMap: typeof ConfigMap; Namespace: typeof Namespace };

/** PRE_SSA's registry and server-core, extracted once under packages/server-core/.kapi/. */
async function preSSA(): Promise<ServerModule & RegistryModule> {
  const dir = join(here, '..', '.kapi', `pre-ssa-http-${PRE_SSA}`);
  if (!existsSync(join(dir, 'packages', 'server-core', 'src', 'index.ts'))) {
    mkdirSync(join(dir, 'node_modules', '@kapi'), { recursive: true });
    const repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: here, encoding: 'utf8' }).trim();
    const paths = ['registry', 'server-core'].flatMap((p) => [`packages/${p}/src`, `packages/${p}/package.json`]);
    const tar = execFileSync('git', ['archive', '--format=tar', PRE_SSA, ...paths], { cwd: repo, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    // Its own package scope (no self-reference to today's @kapi/server-core) and the old packages by name.
    writeFileSync(join(dir, 'package.json'), '{ "name": "pre-ssa-http", "private": true, "type": "module" }\n');
    for (const p of ['registry', 'server-core']) symlinkSync(join('..', '..', 'packages', p), join(dir, 'node_modules', '@kapi', p));
  }
  const entry = (p: string) => join(dir, 'node_modules', '@kapi', p, 'src', 'index.ts');
  return { ...((await import(entry('server-core'))) as ServerModule), ...((await import(entry('registry'))) as RegistryModule) };
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/**
 * While true, every field manager in this process records nothing and drops managedFields (kube has no such switch;
 * only the "off" server's writes run with it, one row at a time).
 */
let fieldManagerOff = false;
const recordManagedFields = FieldManager.prototype.update;
FieldManager.prototype.update = function (this: FieldManager, live, next, manager) {
  if (!fieldManagerOff) return recordManagedFields.call(this, live, next, manager);
  const { managedFields: _m, ...metadata } = next.metadata ?? {};
  return { ...next, metadata };
};

/** `op` with the field manager off (setup included, so its objects never get managedFields). */
const withFieldManagerOff =
  (op: (round: number) => Promise<number>) =>
  async (round: number): Promise<number> => {
    fieldManagerOff = true;
    try {
      return await op(round);
    } finally {
      fieldManagerOff = false;
    }
  };

const call = (url: string, method: string, path: string, status: number, body?: unknown, type?: string) =>
  callJson(agent, url, method, path, status, body, type);

const body = (name: string, v: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { app: 'bench' } },
  data: Object.fromEntries(Array.from({ length: KEYS }, (_, k) => [`key-${k}`, `${v} ${k}`])),
});
const COLLECTION = '/api/v1/namespaces/default/configmaps';

interface Writes {
  create(round: number): Promise<number>;
  update(round: number): Promise<number>;
  patch(round: number): Promise<number>;
  apply?(round: number): Promise<number>;
}

/** Each row's writes on objects of its own (names carry the row and round); setup is not timed. */
async function writes(m: ServerModule & RegistryModule, storage: Storage, apply: boolean): Promise<Writes> {
  const server = new m.GenericAPIServer({ storage, resources: [m.Namespace, m.ConfigMap] });
  await server.start();
  const { url } = await m.listen(server.handler);
  let run = 0;
  const names = (row: string) => {
    const id = run++;
    return Array.from({ length: N }, (_, i) => `${row}-${id}-${i}`);
  };
  const createAll = async (ns: string[]) => {
    const out: unknown[] = [];
    await rateWithConcurrency(N, CONCURRENCY, async (i) => {
      out[i] = await call(url, 'POST', COLLECTION, 201, body(ns[i] as string, 'v0'));
    });
    return out as { data: Record<string, string> }[];
  };
  return {
    async create() {
      const ns = names('c');
      return rateWithConcurrency(N, CONCURRENCY, (i) => call(url, 'POST', COLLECTION, 201, body(ns[i] as string, 'v0')));
    },
    async update() {
      const ns = names('u');
      const next = (await createAll(ns)).map((o) => ({ ...o, data: { ...o.data, 'key-0': 'v1' } }));
      return rateWithConcurrency(N, CONCURRENCY, (i) => call(url, 'PUT', `${COLLECTION}/${ns[i]}`, 200, next[i]));
    },
    async patch() {
      const ns = names('p');
      await createAll(ns);
      const patch = { data: { 'key-0': 'v1' } };
      return rateWithConcurrency(N, CONCURRENCY, (i) =>
        call(url, 'PATCH', `${COLLECTION}/${ns[i]}`, 200, patch, 'application/merge-patch+json'),
      );
    },
    ...(apply
      ? {
          async apply() {
            const ns = names('a');
            const path = (i: number) => `${COLLECTION}/${ns[i]}?fieldManager=applier`;
            const type = 'application/apply-patch+yaml';
            await rateWithConcurrency(N, CONCURRENCY, (i) => call(url, 'PATCH', path(i), 201, body(ns[i] as string, 'v0'), type));
            return rateWithConcurrency(N, CONCURRENCY, (i) => {
              const b = body(ns[i] as string, 'v0');
              return call(url, 'PATCH', path(i), 200, { ...b, data: { ...b.data, 'key-0': 'v1' } }, type);
            });
          },
        }
      : {}),
  };
}

/**
 * Runs the rows with `storage()` under both servers (each its own storage: on a shared backend, its own prefix) and
 * prints the table. `backend` names the storage in the title.
 */
export async function runManagedFieldsBench(backend: string, storage: (server: 'now' | 'before' | 'off') => Storage): Promise<void> {
  const today = { GenericAPIServer, listen, ConfigMap, Namespace };
  const now = await writes(today, storage('now'), true);
  const old = await writes(await preSSA(), storage('before'), false);
  const bare = await writes(today, storage('off'), false);
  const off = {
    create: withFieldManagerOff(bare.create),
    update: withFieldManagerOff(bare.update),
    patch: withFieldManagerOff(bare.patch),
  };
  // One untimed pass of everything first, so no row runs on a colder JIT than the ones after it.
  for (const w of [now, old, off] as Writes[]) for (const op of [w.create, w.update, w.patch, w.apply]) await op?.(0);
  const rows: BenchRow[] = [];
  rows.push([`create (POST, ${KEYS} keys)`, ...(await alternatingRounds(ROUNDS, now.create, old.create))]);
  rows.push(['update (PUT)', ...(await alternatingRounds(ROUNDS, now.update, old.update))]);
  rows.push(['merge patch', ...(await alternatingRounds(ROUNDS, now.patch, old.patch))]);
  rows.push(['apply (vs merge patch)', ...(await alternatingRounds(ROUNDS, now.apply as (r: number) => Promise<number>, old.patch))]);
  printTable({
    title: `ConfigMap writes over HTTP/1.1 on loopback, ${CONCURRENCY} in flight, ${backend}: GenericAPIServer with managedFields vs before server-side apply (${PRE_SSA}) (requests/s, best of ${ROUNDS} alternating rounds; median: of the rounds' ratios)`,
    notes: ['The bar: ratio ≥ 0.80 (managedFields within a fifth of the write); the median is its steadier estimate.'],
    referenceName: 'before',
    rows,
  });
  const offRows: BenchRow[] = [];
  offRows.push([`create (POST, ${KEYS} keys)`, ...(await alternatingRounds(ROUNDS, now.create, off.create))]);
  offRows.push(['update (PUT)', ...(await alternatingRounds(ROUNDS, now.update, off.update))]);
  offRows.push(['merge patch', ...(await alternatingRounds(ROUNDS, now.patch, off.patch))]);
  printTable({
    title: `The same writes, ${backend}: GenericAPIServer with managedFields vs the same server with its field manager off (no managedFields) (requests/s, best of ${ROUNDS} alternating rounds; median: of the rounds' ratios)`,
    notes: ["What managedFields cost today's write path: the field manager and the entries' bytes, nothing else."],
    referenceName: 'FM off',
    rows: offRows,
  });
}

/**
 * What server-side apply costs a write: ConfigMap creates, updates (PUT of the object as read, managedFields
 * included, as clients send it back) and merge patches per second through the Store over MemoryStorage, with
 * metadata.managedFields recorded on every write, next to the same writes through the Store as it was before
 * server-side apply (kapi at PRE_SSA, its registry sources extracted from git into the gitignored .kapi/ and run
 * against today's other packages). The issue's bar: ratio ≥ 0.8 (the cost within a fifth of the write). The apply row
 * has no "before" (apply answered 415): its reference is the pre-SSA merge patch of the same change. Figures are
 * ops/s, best of alternating rounds, with the median of the rounds' own ratios beside the ratio of the bests. The last
 * two rows measure what the entries' bytes alone cost: the Store before server-side apply, handed the managedFields
 * kapi writes for the same ConfigMap as data it keeps (no field manager runs), against itself without them.
 * Run: `npm run bench` in packages/registry.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStorage } from '@kapi/storage';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { alternatingRounds, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { ConfigMap } from '../src/builtins/configmap.ts';
import { Store } from '../src/store/store.ts';

/** The last commit before server-side apply (issue 15): the Store without a field manager. */
const PRE_SSA = 'c6721b6a';
const ROUNDS = 11;
const N = 3_000;
const KEYS = 5;

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');

/** The registry's sources at PRE_SSA, extracted once under packages/registry/.kapi/ (resolves @kapi/* and zod as today). */
async function preSSA(): Promise<{ Store: typeof Store; ConfigMap: typeof ConfigMap }> {
  const dir = join(pkg, '.kapi', `pre-ssa-${PRE_SSA}`);
  if (!existsSync(join(dir, 'src', 'store', 'store.ts'))) {
    mkdirSync(dir, { recursive: true });
    const repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: pkg, encoding: 'utf8' }).trim();
    const tar = execFileSync('git', ['archive', '--format=tar', PRE_SSA, 'packages/registry/src'], { cwd: repo, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '--strip-components=2', '-C', dir], { input: tar });
  }
  const store = (await import(join(dir, 'src', 'store', 'store.ts'))) as { Store: typeof Store };
  const cm = (await import(join(dir, 'src', 'builtins', 'configmap.ts'))) as { ConfigMap: typeof ConfigMap };
  return { Store: store.Store, ConfigMap: cm.ConfigMap };
}

const ctx = { namespace: 'default' };
/** The bench's ConfigMap; `managedFields`, when given, carried in as the client sends it (the "carrying" writes). */
const body = (i: number, v: string, managedFields?: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: 'default', labels: { app: 'bench' }, ...(managedFields ? { managedFields } : {}) },
  data: Object.fromEntries(Array.from({ length: KEYS }, (_, k) => [`key-${k}`, `${v} ${k}`])),
});

interface Writes {
  create(): Promise<number>;
  update(): Promise<number>;
  patch(): Promise<number>;
  apply?(): Promise<number>;
}

/** Each op on a fresh store; update and patch on objects created before the clock starts; bodies carry `carried`. */
function writes(S: typeof Store, def: typeof ConfigMap, apply: boolean, carried?: unknown[]): Writes {
  const bodyOf = (i: number, v: string) => body(i, v, carried);
  /** A store over a new MemoryStorage, holding N ConfigMaps created (or applied, by the applier) when asked. */
  const fresh = async (populate: 'create' | 'apply' | false) => {
    const storage = new MemoryStorage({ compaction: false });
    const store = new S(def, { storage });
    const objects = [];
    for (let i = 0; populate && i < N; i++) {
      const written =
        populate === 'create'
          ? await store.create(ctx, bodyOf(i, 'v0'), { fieldManager: 'bench' })
          : await store.patch(ctx, `cm-${i}`, bodyOf(i, 'v0'), 'apply', { fieldManager: 'applier' });
      objects.push(written.object);
    }
    return { store, objects };
  };
  return {
    async create() {
      const { store } = await fresh(false);
      return timeOps(N, async () => {
        for (let i = 0; i < N; i++) await store.create(ctx, bodyOf(i, 'v0'), { fieldManager: 'bench' });
      });
    },
    async update() {
      const { store, objects } = await fresh('create');
      const next = objects.map((o) => ({ ...o, data: { ...(o as { data: Record<string, string> }).data, 'key-0': 'v1' } }));
      return timeOps(N, async () => {
        for (let i = 0; i < N; i++) await store.update(ctx, `cm-${i}`, next[i], { fieldManager: 'bench' });
      });
    },
    async patch() {
      const { store } = await fresh('create');
      return timeOps(N, async () => {
        for (let i = 0; i < N; i++) await store.patch(ctx, `cm-${i}`, { data: { 'key-0': 'v1' } }, 'merge', { fieldManager: 'bench' });
      });
    },
    ...(apply
      ? {
          // The applier changes one value of what it applied (a GitOps sync): merge by ownership, no conflict.
          async apply() {
            const { store } = await fresh('apply');
            return timeOps(N, async () => {
              for (let i = 0; i < N; i++)
                await store.patch(ctx, `cm-${i}`, { ...bodyOf(i, 'v0'), data: { ...bodyOf(i, 'v0').data, 'key-0': 'v1' } }, 'apply', {
                  fieldManager: 'applier',
                });
            });
          },
        }
      : {}),
  };
}

const before = await preSSA();
const now = writes(Store, ConfigMap, true);
const old = writes(before.Store, before.ConfigMap, false);
// The entries kapi records for a create of the bench's ConfigMap (one Update manager), as the Store returns them.
const kapiEntries = (await new Store(ConfigMap, { storage: new MemoryStorage() }).create(ctx, body(0, 'v0'), { fieldManager: 'bench' }))
  .object.metadata.managedFields as unknown[];
const oldCarrying = writes(before.Store, before.ConfigMap, false, kapiEntries);
// One untimed pass of everything first, so no row runs on a colder JIT than the ones after it.
for (const w of [now, old]) for (const op of [w.create, w.update, w.patch, w.apply]) await op?.();
for (const op of [oldCarrying.create, oldCarrying.update]) await op();
const rows: BenchRow[] = [];
rows.push([`create (${KEYS} keys)`, ...(await alternatingRounds(ROUNDS, now.create, old.create))]);
rows.push(['update (PUT)', ...(await alternatingRounds(ROUNDS, now.update, old.update))]);
rows.push(['merge patch', ...(await alternatingRounds(ROUNDS, now.patch, old.patch))]);
rows.push(['apply (vs merge patch)', ...(await alternatingRounds(ROUNDS, now.apply as () => Promise<number>, old.patch))]);
rows.push(['create: before, carrying entries', ...(await alternatingRounds(ROUNDS, oldCarrying.create, old.create))]);
rows.push(['update: before, carrying entries', ...(await alternatingRounds(ROUNDS, oldCarrying.update, old.update))]);

printTable({
  title: `ConfigMap writes through the Store over MemoryStorage: with managedFields vs before server-side apply (${PRE_SSA}) (ops/s, best of ${ROUNDS} alternating rounds; median: of the rounds' ratios)`,
  notes: [
    'The bar: ratio ≥ 0.80 (managedFields within a fifth of the write); the median is its steadier estimate.',
    '"before, carrying entries": the Store before server-side apply handed the managedFields kapi writes for this ConfigMap (kept as data, no field manager) vs the same Store without them — what the bytes alone cost.',
  ],
  referenceName: 'before',
  rows,
});

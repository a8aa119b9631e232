/**
 * The Updater on every write, for a ConfigMap (ObjectMeta with labels and annotations, ten data keys; schema as
 * kube publishes it, trimmed to those fields): the ownership update of a create and of an update that changes one
 * value with two managers on record, a re-apply that changes one value, and an apply that stops applying a key
 * (prune) — each against JSON.stringify of the same object, work every write does anyway.
 * Figures are ops/s (best of alternating rounds); ratio = kapi / reference.
 * Run: `node --conditions=@kapi/source bench/updater.bench.ts`.
 */
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { Updater } from '../src/merge/updater.ts';
import { fromOpenAPI, type OpenAPISchemaObject } from '../src/typed/from-openapi.ts';

const ROUNDS = 7;
const N = 5_000;

const str: OpenAPISchemaObject = { type: 'string' };
const strMap: OpenAPISchemaObject = { type: 'object', additionalProperties: str };
const configMapSchema: OpenAPISchemaObject = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: {
      type: 'object',
      properties: {
        name: str,
        namespace: str,
        labels: strMap,
        annotations: strMap,
        finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
      },
    },
    data: strMap,
    binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
    immutable: { type: 'boolean' },
  },
};

const configMap = (version: number, keys = 10) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'settings',
    namespace: 'default',
    labels: { app: 'web', tier: 'frontend' },
    annotations: { owner: 'team-a' },
  },
  data: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`key-${i}`, i === 0 ? `value-${version}` : `value-${i}`])),
});

const type = fromOpenAPI(configMapSchema);
const updater = new Updater({ typeFor: () => type });
const v1 = configMap(1);
const v2 = configMap(2);
const created = updater.update(null, v1, 'v1', new Map(), 'kubectl-create');
const twoManagers = updater.update(v1, configMap(3), 'v1', created.managers, 'controller').managers;
const applied = updater.apply(null, v1, 'v1', new Map(), 'kubectl', false);
const fewer = configMap(1, 9);

async function row(name: string, kapi: () => unknown, reference: () => unknown): Promise<BenchRow> {
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(N, () => {
        for (let i = 0; i < N; i++) kapi();
      }),
    async () =>
      timeOps(N, () => {
        for (let i = 0; i < N; i++) reference();
      }),
  );
  return [name, k, r];
}

const rows: BenchRow[] = [
  await row(
    'update: create',
    () => updater.update(null, v1, 'v1', new Map(), 'kubectl-create'),
    () => JSON.stringify(v1),
  ),
  await row(
    'update: one value, 2 managers',
    () => updater.update(v1, v2, 'v1', twoManagers, 'controller'),
    () => JSON.stringify(v2),
  ),
  await row(
    'apply: one value changed',
    () => updater.apply(v1, v2, 'v1', applied.managers, 'kubectl', false),
    () => JSON.stringify(v2),
  ),
  await row(
    'apply: one key dropped',
    () => updater.apply(v1, fewer, 'v1', applied.managers, 'kubectl', false),
    () => JSON.stringify(v2),
  ),
];
printTable({ title: 'Updater (server-side apply ownership) on a ConfigMap, ops/s', referenceName: 'stringify', rows });

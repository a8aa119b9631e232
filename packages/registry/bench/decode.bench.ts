/**
 * Decoding and validating a request body against the floor, in one run: the Store's decodeBody + parseObject (JSON
 * decoder with duplicate keys and the depth limit, unknown-field pruning, ObjectMeta rules, zod with "__proto__" keys
 * kept as data) vs JSON.parse plus the same zod schema's plain safeParse. Figures are ops/s (best of alternating
 * rounds); ratio = kapi / floor. Run: `npm run bench` in packages/registry.
 */
import { z } from 'zod';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { ConfigMap, configMapSchema } from '../src/builtins/configmap.ts';
import { decodeBody } from '../src/store/decode.ts';
import { parseObject } from '../src/validate-object.ts';

const ROUNDS = 7;
const def = ConfigMap as never;
const schema = configMapSchema;

const rows: BenchRow[] = [];
for (const [name, keys, n] of [
  ['ConfigMap, 5 keys', 5, 20_000],
  ['ConfigMap, 200 keys', 200, 2_000],
] as const) {
  const text = JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', labels: { app: 'bench' } },
    data: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`key-${i}`, `value ${i}`])),
  });
  const r = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) parseObject(def, 'v1', decodeBody(def, text).object);
      }),
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) {
          const { apiVersion: _a, kind: _k, metadata: _m, ...body } = JSON.parse(text) as Record<string, unknown>;
          z.safeParse(schema, body);
        }
      }),
  );
  rows.push([`decode + validate, ${name}`, ...r]);
}

printTable({
  title: 'Request body decode + validation: kapi vs JSON.parse + zod (ops/s, best of 7 alternating rounds)',
  referenceName: 'floor',
  rows,
});

/**
 * The JSON decoder and the JSON-value helpers against the natives they stand beside, in one run:
 * parseJsonDetectingDuplicates (JSON.parse plus the scan for duplicate keys and the 10,000-level depth limit) vs
 * JSON.parse alone; copyJson (explicit stack, "__proto__" as data) vs structuredClone; stringifyJson vs JSON.stringify
 * (the same call unless the value is too deep for the native one). Figures are ops/s (best of alternating rounds);
 * ratio = kapi / reference. Run: `npm run bench` in packages/apimachinery.
 */
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { copyJson, parseJsonDetectingDuplicates, stringifyJson } from '../src/index.ts';

const ROUNDS = 7;

/** A typical object (benchWidget) and a large one: a ConfigMap of 200 keys with nested JSON-ish values. */
const small = benchWidget(1);
const large = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'big', namespace: 'default', labels: { app: 'bench' }, annotations: { note: 'x'.repeat(200) } },
  data: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`key-${i}`, `value ${i} ${'y'.repeat(i % 50)}`])),
  spec: { items: Array.from({ length: 100 }, (_, i) => ({ name: `n${i}`, port: i, tags: ['a', 'b'], nested: { on: i % 2 === 0 } })) },
};

const rows: BenchRow[] = [];
for (const [name, value, n] of [
  ['typical object', small, 50_000],
  ['large object', large, 2_000],
] as const) {
  const text = JSON.stringify(value);
  const decode = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) parseJsonDetectingDuplicates(text);
      }),
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) JSON.parse(text);
      }),
  );
  rows.push([`decode, ${name}`, ...decode]);
  const parsed = JSON.parse(text) as unknown;
  const copy = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) copyJson(parsed);
      }),
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) structuredClone(parsed);
      }),
  );
  rows.push([`copy, ${name}`, ...copy]);
  const encode = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) stringifyJson(parsed);
      }),
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) JSON.stringify(parsed);
      }),
  );
  rows.push([`encode, ${name}`, ...encode]);
}

printTable({
  title: 'JSON values: kapi vs native (ops/s, best of 7 alternating rounds)',
  notes: ['references: JSON.parse (decode), structuredClone (copy), JSON.stringify (encode)'],
  referenceName: 'native',
  rows,
});

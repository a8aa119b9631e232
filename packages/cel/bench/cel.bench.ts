/**
 * @kapi/cel against the CEL library it wraps, in one run: compile (parse + type-check, plus cel-go error texts on
 * failure) vs the library's parse + check; evaluate (JSON activation converted to CEL values, cost counted per node)
 * vs the library evaluating an already-converted activation with no cost tracking. The ratio is what the wrapper costs.
 * Figures are ops/s (best of alternating rounds); ratio = kapi / reference. Run: `npm run bench` in packages/cel.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { benchWidget, bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { CelEnvironment } from '../src/index.ts';
import { toCel } from '../src/values.ts';

const ROUNDS = 7;

const env = new CelEnvironment({ variables: { self: 'dyn', oldSelf: 'dyn' } });
const reference = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
  .registerVariable('self', 'dyn')
  .registerVariable('oldSelf', 'dyn');

const widget = benchWidget(1);
const list = {
  ...widget,
  spec: { ...(widget.spec as Record<string, unknown>), ports: Array.from({ length: 100 }, (_, i) => ({ name: `p${i}`, port: 1000 + i })) },
};
const cases = [
  ['scalar rule', 'self.spec.replicas >= 0 && self.spec.replicas <= 100 && self.metadata.name.startsWith("w-")', widget],
  ['transition rule', 'self.spec.replicas >= oldSelf.spec.replicas', widget],
  ['100-item comprehension', 'self.spec.ports.all(p, p.port > 0 && p.name.size() < 64)', list],
] as const;

const rows: BenchRow[] = [];
for (const [name, expression, object] of cases) {
  const n = name.startsWith('100') ? 5_000 : 50_000;
  const compiled = env.compile(expression);
  if (compiled.kind === 'error') throw compiled.error;
  const program = compiled.program;
  const parsed = reference.parse(expression);
  parsed.check();
  const converted = { self: toCel(object), oldSelf: toCel(object) };
  const evaluate = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) program.evaluate({ self: object, oldSelf: object });
      }),
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) parsed(converted);
      }),
  );
  rows.push([`evaluate, ${name}`, ...evaluate]);
  const compileOps = 5_000;
  const compile = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(compileOps, () => {
        for (let i = 0; i < compileOps; i++) env.compile(expression);
      }),
    async () =>
      timeOps(compileOps, () => {
        for (let i = 0; i < compileOps; i++) reference.parse(expression).check();
      }),
  );
  rows.push([`compile, ${name}`, ...compile]);
}

printTable({
  title: '@kapi/cel vs @marcbachmann/cel-js alone (ops/s)',
  notes: ['kapi: JSON activation converted per call, runtime cost counted; reference: pre-converted activation, no cost'],
  referenceName: 'cel-js',
  rows,
});

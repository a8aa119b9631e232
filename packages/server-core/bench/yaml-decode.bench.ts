/**
 * Decoding a YAML request body (parseYAMLBody: the yaml library behind the token bound, the depth and duplicate-key
 * checks) against JSON.parse of the same value written as JSON, in one run. Rows: a typical manifest, the largest
 * flow sequence under MAX_YAML_TOKENS (the most an accepted body costs), and two 3 MiB bodies the token bound
 * refuses (which took 7-17 s each before it), and a 3 MiB body that is JSON (decoded as JSON; the yaml library took 10-19 s on it). Figures are ops/s (best of alternating rounds); ratio = kapi / JSON.parse.
 * Run: `npm run bench` in packages/server-core.
 */
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { MAX_YAML_TOKENS, parseYAMLBody } from '../src/endpoints/request-body.ts';

const ROUNDS = 5;
const MIB3 = 3 * 1024 * 1024;

const manifest = [
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  '  name: web',
  '  namespace: default',
  '  labels: {app: web, tier: frontend}',
  'spec:',
  '  replicas: 3',
  '  selector:',
  '    matchLabels: {app: web}',
  '  template:',
  '    metadata:',
  '      labels: {app: web}',
  '    spec:',
  '      containers:',
  ...Array.from({ length: 20 }, (_, i) =>
    [
      `      - name: c${i}`,
      `        image: registry.example/web:1.${i}`,
      '        args: [--port=8080, --verbose]',
      '        ports:',
      '          - containerPort: 8080',
      '            protocol: TCP',
      '        env:',
      `          - {name: INDEX, value: "${i}"}`,
    ].join('\n'),
  ),
  '',
].join('\n');

/** `a: [a,a,…]`: three tokens per item (scalar, comma, and the lexer's flow bookkeeping). */
const flow = (items: number) => `a: [${Array(items).fill('a').join(',')}]`;

const cases: [name: string, yaml: string, ops: number][] = [
  ['manifest (Deployment, 20 containers)', manifest, 300],
  [`flow sequence just under ${MAX_YAML_TOKENS} tokens`, flow(Math.floor(MAX_YAML_TOKENS / 3) - 10), 1],
  ['3 MiB flow sequence (refused)', flow(Math.floor((MIB3 - 5) / 2)), 1],
  ['3 MiB of blank lines (refused)', `a: 1\n${' \n'.repeat(MIB3 / 2 - 3)}`, 1],
  [
    '3 MiB JSON sent as YAML (decoded as JSON)',
    `{"a": [${Array(Math.floor((MIB3 - 10) / 4))
      .fill('"a"')
      .join(',')}]}`,
    3,
  ],
];

const rows: BenchRow[] = [];
const notes: string[] = ['CPU time of one decode, the event loop held for it:'];
for (const [name, yaml, n] of cases) {
  const bytes = Buffer.from(yaml);
  let value: unknown;
  try {
    value = parseYAMLBody(bytes).value;
  } catch {
    // Refused: the reference parses the JSON of what the body would have decoded to, with the same layout size.
    value = name.startsWith('3 MiB flow') ? { a: Array(Math.floor((MIB3 - 5) / 2)).fill('a') } : { a: 1 };
  }
  const json = JSON.stringify(value);
  const jsonText = json.length < yaml.length && name.includes('blank') ? json + ' '.repeat(yaml.length - json.length) : json;
  const r = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) {
          try {
            parseYAMLBody(bytes);
          } catch {
            // The refusal is the operation measured.
          }
        }
      }),
    async () =>
      timeOps(n, () => {
        for (let i = 0; i < n; i++) JSON.parse(Buffer.from(jsonText).toString('utf8'));
      }),
  );
  rows.push([`${name}, ${(yaml.length / 1024).toFixed(0)} KiB`, ...r]);
  notes.push(`  ${name}: ${(1000 / r[0]).toPrecision(3)} ms per body (JSON.parse: ${(1000 / r[1]).toPrecision(3)} ms)`);
}

printTable({
  title: 'YAML request body decode: parseYAMLBody vs JSON.parse of the same value as JSON (ops/s, best of 5 alternating rounds)',
  notes,
  referenceName: 'JSON.parse',
  rows,
});

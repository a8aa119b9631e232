/**
 * Validating a custom object against its CRD schema, in one run: compileCustomObjectValidator (kube-openapi's checks,
 * embedded resources, list types) vs a zod schema of the same shape and constraints (what a defineResource kind
 * runs), both compiled once. Figures are ops/s (best of alternating rounds); ratio = kapi / zod. Run: `npm run
 * bench` in packages/apiextensions.
 */
import { z } from 'zod';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import type { JSONSchemaProps } from '../src/schema/json-schema-props.ts';
import { compileCustomObjectValidator } from '../src/validation/custom-object-validator.ts';

const ROUNDS = 7;
const N = 20_000;

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        replicas: { type: 'integer', minimum: 0, maximum: 100 },
        image: { type: 'string', pattern: '^[a-z0-9./:-]+$', maxLength: 200 },
        color: { type: 'string', enum: ['red', 'green', 'blue'] },
        args: { type: 'array', maxItems: 20, items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name', 'port'],
            properties: { name: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } },
          },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

const zodSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  spec: z
    .object({
      replicas: z.number().int().min(0).max(100).optional(),
      image: z
        .string()
        .regex(/^[a-z0-9./:-]+$/u)
        .max(200),
      color: z.enum(['red', 'green', 'blue']).optional(),
      args: z.array(z.string()).max(20).optional(),
      ports: z.array(z.object({ name: z.string(), port: z.number().int().min(1).max(65535) })).optional(),
      labels: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  status: z.object({ ready: z.boolean().optional() }).optional(),
});

const valid = {
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default' },
  spec: {
    replicas: 3,
    image: 'registry.example/widget:1.0',
    color: 'blue',
    args: ['--a', '--b'],
    ports: [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ],
    labels: { app: 'bench', tier: 'web' },
  },
  status: { ready: true },
};
const invalid = { ...valid, spec: { ...valid.spec, replicas: 101, color: 'pink', image: 'UPPER' } };

const validator = compileCustomObjectValidator(schema);
for (const [obj, ok] of [
  [valid, true],
  [invalid, false],
] as const) {
  if ((validator.validate(obj).length === 0) !== ok || zodSchema.safeParse(obj).success !== ok) throw new Error('bench objects disagree');
}

const rows: BenchRow[] = [];
for (const [name, obj] of [
  ['valid object', valid],
  ['invalid object (3 errors)', invalid],
] as const) {
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    async () =>
      timeOps(N, () => {
        for (let i = 0; i < N; i++) validator.validate(obj);
      }),
    async () =>
      timeOps(N, () => {
        for (let i = 0; i < N; i++) zodSchema.safeParse(obj);
      }),
  );
  rows.push([name, k, r]);
}
printTable({
  title: 'CRD schema validation (ops/s, best of 7 alternating rounds)',
  notes: ['kapi: compileCustomObjectValidator (kube-openapi checks + embedded resources + list types); zod: same shape'],
  referenceName: 'zod',
  rows,
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatFieldPath, openAPITypeOf, schemaAt } from './schema-walk.ts';

const root = z.object({
  spec: z.object({
    containers: z.array(z.object({ name: z.string(), env: z.record(z.string(), z.object({ value: z.string() })) })).optional(),
    lazy: z.lazy(() => z.object({ n: z.int() })),
    tuple: z.tuple([z.string(), z.number()]),
    count: z.int32().default(1),
    ratio: z.number().nullable(),
    kind: z.enum(['A', 'B']),
    flag: z.literal(true),
  }),
});

describe('schema walking', () => {
  it('prints paths as Kubernetes field paths', () => {
    expect(formatFieldPath(root, ['spec', 'containers', 0, 'env', 'HOME', 'value'])).toBe('spec.containers[0].env[HOME].value');
    expect(formatFieldPath(root, ['spec', 'unknown', 'x'])).toBe('spec.unknown.x');
    expect(formatFieldPath(root, [])).toBe('');
  });

  it('finds the schema at a path through wrappers, lazies and tuples', () => {
    expect(openAPITypeOf(schemaAt(root, ['spec', 'lazy', 'n']))).toBe('integer');
    expect(openAPITypeOf(schemaAt(root, ['spec', 'tuple', 1]))).toBe('number');
    expect(schemaAt(root, ['spec', 'nope'])).toBeUndefined();
  });

  it('names OpenAPI types', () => {
    const at = (k: string) => openAPITypeOf(schemaAt(root, ['spec', k]));
    expect([at('count'), at('ratio'), at('kind'), at('flag'), at('containers'), at('tuple'), at('lazy')]).toEqual([
      'integer',
      'number',
      'string',
      'boolean',
      'array',
      'array',
      'object',
    ]);
    expect(openAPITypeOf(z.unknown())).toBeUndefined();
  });
});

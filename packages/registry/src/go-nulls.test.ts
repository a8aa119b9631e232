import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeNullsAsGo } from './go-nulls.ts';

const schema = z.object({
  data: z.record(z.string(), z.string()).optional(),
  name: z.string().optional(),
  note: z.string().nullable().optional(),
  raw: z.unknown().optional(),
  spec: z
    .object({
      replicas: z.number().optional(),
      ports: z.array(z.object({ name: z.string(), protocol: z.string().optional() })).optional(),
      byName: z.record(z.string(), z.object({ size: z.number().optional() })).optional(),
    })
    .optional(),
});

describe('decodeNullsAsGo (Go’s decoding of null into a kind’s fields)', () => {
  it('removes the nulls of declared fields that cannot hold null, at any depth, in lists’ and maps’ objects too', () => {
    const body = {
      data: null,
      name: null,
      spec: { replicas: null, ports: [{ name: 'a', protocol: null }], byName: { x: { size: null } } },
    };
    expect(decodeNullsAsGo(schema, body)).toBe(true);
    expect(body).toEqual({ spec: { ports: [{ name: 'a' }], byName: { x: {} } } });
  });

  it('makes a null map value or list item of a string, number or boolean its zero value, as Go decodes it', () => {
    const body = { data: { a: null, b: 'x' }, spec: { ports: [{ name: 'a' }], counts: [1, null], flags: { on: null } } };
    const s2 = schema.extend({
      spec: z.object({
        ports: z.array(z.object({ name: z.string() })),
        counts: z.array(z.number()),
        flags: z.record(z.string(), z.boolean()),
      }),
    });
    expect(decodeNullsAsGo(s2, body)).toBe(true);
    expect(body).toEqual({ data: { a: '', b: 'x' }, spec: { ports: [{ name: 'a' }], counts: [1, 0], flags: { on: false } } });
  });

  it('keeps the nulls the schema takes, of undeclared members, and of lists’ and maps’ objects; false when nothing changed', () => {
    const body = { note: null, raw: null, colour: null, spec: { ports: [null], byName: { x: null } } };
    expect(decodeNullsAsGo(schema, body)).toBe(false);
    expect(body).toEqual({ note: null, raw: null, colour: null, spec: { ports: [null], byName: { x: null } } });
  });

  it('walks a body nested far beyond the call stack’s reach', () => {
    type Node = { next?: Node | null; value?: number | null };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ next: node.optional(), value: z.number().optional() }));
    const root: Node = {};
    let at = root;
    for (let i = 0; i < 20_000; i++) at = at.next = {};
    at.value = null;
    expect(decodeNullsAsGo(node, root as Record<string, unknown>)).toBe(true);
    expect(Object.hasOwn(at, 'value')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigMap } from './builtins/configmap.ts';
import { omitEmpty } from './kube-extensions.ts';
import { omitEmptyFields } from './omit-empty-fields.ts';

describe('omitEmptyFields (Go’s omitempty on the fields a schema marks)', () => {
  const item = z.object({ tags: omitEmpty(z.array(z.string())).optional(), keep: z.array(z.string()).optional() });
  const schema = z.object({
    data: omitEmpty(z.record(z.string(), z.string())).optional(),
    plain: z.record(z.string(), z.string()).optional(),
    items: z.array(item).optional(),
    byName: z.record(z.string(), item).optional(),
  });

  it('drops the marked maps and lists that are empty, at any depth the schema reaches; the others stay', () => {
    const omit = omitEmptyFields(schema);
    const value = {
      data: {},
      plain: {},
      items: [{ tags: [], keep: [] }, { tags: ['a'] }],
      byName: { x: { tags: [] } },
    };
    omit?.(value);
    expect(value).toEqual({ plain: {}, items: [{ keep: [] }, { tags: ['a'] }], byName: { x: {} } });
    const full = { data: { a: '1' } };
    omit?.(full);
    expect(full).toEqual({ data: { a: '1' } });
  });

  it('is nothing for a schema that marks nothing', () => {
    expect(omitEmptyFields(z.object({ a: z.array(z.string()) }))).toBeUndefined();
  });

  it('a ConfigMap decodes and validates without an empty data or binaryData, as kube stores it', () => {
    const schema = ConfigMap.storageVersion.schema;
    expect(schema.decode({ data: {}, binaryData: {} })).toEqual({});
    expect(schema.validate({ data: {}, binaryData: { k: 'YQ==' } }, { listSetsAndMaps: true }).value).toEqual({
      binaryData: { k: 'YQ==' },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listMap } from './kube-extensions.ts';
import { safeParseData } from './schema-parse.ts';

describe('safeParseData', () => {
  it('keeps "__proto__" keys of records and loose objects, validated as any other key, in their place', () => {
    const schema = z.object({ m: z.record(z.string(), z.int()), loose: z.looseObject({ n: z.int().optional() }) });
    const ok = safeParseData(schema, JSON.parse('{"m":{"a":1,"__proto__":2,"b":3},"loose":{"__proto__":{"__proto__":[1]},"x":1}}'));
    expect(ok.success && JSON.stringify(ok.data)).toBe('{"m":{"a":1,"__proto__":2,"b":3},"loose":{"__proto__":{"__proto__":[1]},"x":1}}');
    const bad = safeParseData(schema, JSON.parse('{"m":{"__proto__":"x"},"loose":{}}'));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => [i.code, i.path])).toEqual([['invalid_type', ['m', '__proto__']]]);
  });

  it('checks a record key schema against "__proto__" too', () => {
    const bad = safeParseData(z.record(z.string().regex(/^[a-z]+$/), z.string()), JSON.parse('{"__proto__":"x"}'));
    expect(bad.error?.issues.map((i) => [i.code, i.path])).toEqual([['invalid_key', ['__proto__']]]);
  });

  it('restores "__proto__" inside list items and nested records', () => {
    const schema = z.object({
      items: listMap(z.array(z.object({ name: z.string(), tags: z.record(z.string(), z.string()).optional() })), ['name']),
    });
    const text = '{"items":[{"name":"a","tags":{"__proto__":"t","k":"v"}}]}';
    const r = safeParseData(schema, JSON.parse(text));
    expect(r.success && JSON.stringify(r.data)).toBe(text);
  });

  it('a declared field named like an inherited member is absent when the body leaves it out, and parsed when it is there', () => {
    const schema = z.object({ spec: z.object({ constructor: z.string().optional(), toString: z.int().optional(), valueOf: z.string() }) });
    expect(z.safeParse(schema, { spec: { valueOf: 'v' } }).success).toBe(false);
    const absent = safeParseData(schema, { spec: { valueOf: 'v' } });
    expect(absent.success && JSON.stringify(absent.data)).toBe('{"spec":{"valueOf":"v"}}');
    expect(absent.success && Object.getPrototypeOf(absent.data.spec)).toBe(Object.prototype);
    const present = safeParseData(schema, { spec: { constructor: 'c', toString: 1, valueOf: 'v' } });
    expect(present.success && JSON.stringify(present.data)).toBe('{"spec":{"constructor":"c","toString":1,"valueOf":"v"}}');
    const missing = safeParseData(schema, { spec: {} });
    expect(missing.error?.issues.map((i) => [i.code, i.path])).toEqual([['invalid_type', ['spec', 'valueOf']]]);
    const input = { spec: { valueOf: 'v' } };
    safeParseData(schema, input);
    expect(Object.getPrototypeOf(input.spec)).toBe(Object.prototype);
  });
});

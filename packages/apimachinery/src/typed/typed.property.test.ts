// Laws of the typed walks over random values of a schema with every kind of container: a struct with scalars,
// a granular and an atomic map, a map list (keys name + port, port defaulted), a set and an atomic list, nested.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../json-data.ts';
import { compare, isSameComparison } from './compare.ts';
import { fromOpenAPI, type OpenAPISchemaObject } from './from-openapi.ts';
import { merge } from './merge.ts';
import { removeItems } from './remove.ts';
import { toFieldSet } from './to-field-set.ts';
import { validate } from './validate.ts';

const item: OpenAPISchemaObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    port: { type: 'integer', default: 80 },
    value: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
  },
};
const spec: OpenAPISchemaObject = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
    items: { type: 'array', items: item, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'] },
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    args: { type: 'array', items: { type: 'string' } },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};
const type = fromOpenAPI({ type: 'object', properties: { spec, status: spec } });

const word = fc.constantFrom('a', 'b', 'c', 'd');
const strMap = fc.dictionary(word, word, { maxKeys: 3 });
const arbItem = fc.record(
  { name: word, port: fc.constantFrom(80, 443), value: word, tags: fc.uniqueArray(word, { maxLength: 3 }) },
  { requiredKeys: ['name'] },
);
const arbSpec = fc.record(
  {
    replicas: fc.integer({ min: 0, max: 3 }),
    labels: strMap,
    selector: strMap,
    // No two items with the same key (a configuration may not repeat one).
    items: fc.uniqueArray(arbItem, { maxLength: 4, selector: (i) => `${i.name}/${i.port ?? 80}` }),
    finalizers: fc.uniqueArray(word, { maxLength: 3 }),
    args: fc.array(word, { maxLength: 3 }),
    extra: fc.jsonValue({ maxDepth: 2 }).map((v) => ({ v })),
  },
  { requiredKeys: [] },
);
const arbObject = fc.record({ spec: arbSpec, status: arbSpec }, { requiredKeys: [] });

describe('typed walks: laws', () => {
  it('generated values are valid', () => {
    fc.assert(
      fc.property(arbObject, (o) => {
        expect(validate(type, o)).toEqual([]);
      }),
    );
  });

  it('compare(a, a) finds nothing; compare(b, a) mirrors compare(a, b)', () => {
    fc.assert(
      fc.property(arbObject, arbObject, (a, b) => {
        expect(isSameComparison(compare(type, a, structuredClone(a)))).toBe(true);
        const ab = compare(type, a, b);
        const ba = compare(type, b, a);
        expect(ab.added.equals(ba.removed)).toBe(true);
        expect(ab.removed.equals(ba.added)).toBe(true);
        expect(ab.modified.equals(ba.modified)).toBe(true);
      }),
    );
  });

  it('merge(a, a) is a; merge(a, b) keeps what b says (nothing of b removed or changed) and is idempotent; inputs unchanged', () => {
    fc.assert(
      fc.property(arbObject, arbObject, (a, b) => {
        expect(jsonEqual(merge(type, a, structuredClone(a)), a)).toBe(true);
        const [a0, b0] = [structuredClone(a), structuredClone(b)];
        const m = merge(type, a, b);
        expect(a).toEqual(a0);
        expect(b).toEqual(b0);
        const fromB = compare(type, b, m);
        expect(fromB.removed.isEmpty(), `removed ${fromB.removed}`).toBe(true);
        expect(fromB.modified.isEmpty(), `modified ${fromB.modified}`).toBe(true);
        expect(jsonEqual(merge(type, m, b), m)).toBe(true);
      }),
    );
  });

  it('removing a value own fields leaves nothing; removing none changes nothing', () => {
    fc.assert(
      fc.property(arbObject, (a) => {
        const set = toFieldSet(type, a);
        const r = removeItems(type, a, set);
        expect(r === null || isSameComparison(compare(type, r, r))).toBe(true);
        expect(
          toFieldSet(type, r ?? {})
            .intersection(set.leaves())
            .isEmpty(),
        ).toBe(true);
        expect(jsonEqual(removeItems(type, a, toFieldSet(type, {})), Object.keys(a).length ? a : null)).toBe(true);
      }),
    );
  });
});

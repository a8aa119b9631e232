import { jsonEqual } from '@kapi/apimachinery';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDefaults } from './defaulting.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';
import { prune } from './pruning.ts';

// A schema with every way of specifying fields: properties, items, additionalProperties, preserve-unknown-fields,
// an embedded resource, defaults.
const schema = newStructural({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        a: { type: 'string', default: 'A' },
        list: {
          type: 'array',
          items: {
            type: 'object',
            properties: { k: { type: 'string' }, o: { type: 'object', default: { k: 'x' }, properties: { k: { type: 'string' } } } },
          },
        },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer', default: 0 } } } },
        free: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { strict: { type: 'object', properties: { s: { type: 'string' } } } },
        },
        res: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { r: { type: 'string' } } } },
        },
      },
    },
  } satisfies Record<string, JSONSchemaProps>,
});

const keys = fc.constantFrom(
  'spec',
  'a',
  'list',
  'k',
  'o',
  'map',
  'v',
  'free',
  'strict',
  's',
  'res',
  'r',
  'kind',
  'metadata',
  'x',
  'y',
  '__proto__',
);
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
    tie('arr'),
    tie('obj'),
  ),
  arr: fc.array(tie('any'), { maxLength: 3 }),
  obj: fc.dictionary(keys, tie('any'), { maxKeys: 5 }),
})).obj;

const has = (root: unknown, path: string): boolean => {
  let cur: unknown = root;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, part)) return false;
    cur = (cur as Record<string, unknown>)[part];
  }
  return true;
};

describe('prune and applyDefaults on random objects', () => {
  it('every pruned path was there and is gone, a second prune finds nothing, defaults add nothing prune would drop', () => {
    fc.assert(
      fc.property(value, (input) => {
        const obj = structuredClone(input);
        const pruned = prune(obj, schema, { isResourceRoot: true });
        for (const p of pruned) {
          expect(has(input, p)).toBe(true);
          expect(has(obj, p)).toBe(false);
        }
        expect(prune(structuredClone(obj), schema, { isResourceRoot: true })).toEqual([]);
        applyDefaults(obj, schema);
        const again = structuredClone(obj);
        expect(prune(again, schema, { isResourceRoot: true })).toEqual([]);
        expect(jsonEqual(again, obj)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { newStructural } from '../schema/new-structural.ts';
import { correlatedEqual } from './correlated-equal.ts';

// Cases after kube's k8s.io/apiserver/pkg/cel/common/equality_test.go (CachedDeepEqual of the correlated values).

const entry: JSONSchemaProps = {
  type: 'object',
  properties: { key: { type: 'string' }, bar: { type: 'object', properties: { baz: { type: 'string' } } } },
};
const mapList = newStructural({
  type: 'object',
  properties: { foo: { type: 'array', items: entry, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'] } },
});
const atomicSet = newStructural({
  type: 'object',
  properties: {
    foo: {
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { key: { type: 'string' }, bar: { type: 'string' } } },
    },
  },
});
const nested = newStructural({ type: 'object', properties: { foo: entry } });

describe('correlatedEqual', () => {
  it('Re-ordered list considered equal to old value due to map keys', () => {
    const a = { key: 'keyValue', bar: { baz: 'value' } };
    const b = { key: 'altKeyValue', bar: { baz: 'altValue' } };
    expect(correlatedEqual(mapList, { foo: [a, b] }, { foo: [b, a] })).toBe(true);
    expect(correlatedEqual(mapList, { foo: [a, b] }, { foo: [b, { ...a, bar: { baz: 'other' } }] })).toBe(false);
    expect(correlatedEqual(mapList, { foo: [a, b] }, { foo: [a, { ...b, key: 'otherKeyValue' }] })).toBe(false);
  });

  it('Changed nested map value / Nested map equal to old', () => {
    expect(
      correlatedEqual(
        nested,
        { foo: { key: 'keyValue', bar: { baz: 'newValue' } } },
        { foo: { key: 'keyValue', bar: { baz: 'oldValue' } } },
      ),
    ).toBe(false);
    expect(correlatedEqual(nested.properties?.get('foo')?.properties?.get('bar'), { baz: 'value' }, { baz: 'value' })).toBe(true);
  });

  it('unchanged / changed list type set with atomic map values', () => {
    const old = {
      foo: [
        { key: 'key1', bar: 'value1' },
        { key: 'key2', bar: 'value2' },
      ],
    };
    expect(correlatedEqual(atomicSet, structuredClone(old), old)).toBe(true);
    expect(
      correlatedEqual(
        atomicSet,
        {
          foo: [
            { key: 'key1', bar: 'value1' },
            { key: 'key2', bar: 'newValue2' },
          ],
        },
        old,
      ),
    ).toBe(false);
  });

  it('Added Key In Old Object / Changed list to map / Changed string to map', () => {
    const s = newStructural({ type: 'object', properties: { a: { type: 'string' } } });
    expect(correlatedEqual(s, { a: 'b' }, {})).toBe(false);
    expect(correlatedEqual(s, { a: 'b' }, ['a', 'b'])).toBe(false);
    expect(correlatedEqual(s, { a: 'b' }, 'a string')).toBe(false);
    expect(correlatedEqual(s, { a: 'b' }, { a: 'b' })).toBe(true);
  });
});

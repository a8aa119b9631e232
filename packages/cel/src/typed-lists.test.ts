import { describe, expect, it } from 'vitest';
import { listType, mapType, objectType } from './cel-type.ts';
import { CelEnvironment } from './environment.ts';

// kube's unstructuredSetList / unstructuredMapList (k8s.io/apiserver/pkg/cel/common/values.go): a list of
// x-kubernetes-list-type set or map compares ignoring order, and `+` unites or merges.

const entry = objectType('lt.entry', { key: 'string', bar: objectType('lt.entry.bar', { baz: 'string' }) });
const pair = objectType('lt.pair', { a: 'string', b: 'int', v: 'string' });
const selfType = objectType('lt', {
  tags: listType('string', { listType: 'set' }),
  nums: listType('int', { listType: 'set' }),
  atomic: listType('string', { listType: 'atomic' }),
  plain: listType('string'),
  foo: listType(entry, { listType: 'map', mapKeys: ['key'] }),
  pairs: listType(pair, { listType: 'map', mapKeys: ['a', 'b'] }),
  byName: mapType(listType('string', { listType: 'set' })),
  nested: objectType('lt.nested', { tags: listType('string', { listType: 'set' }) }),
});
const env = new CelEnvironment({ variables: { self: selfType, oldSelf: selfType } });

function value(expression: string, self: unknown, oldSelf: unknown = self): unknown {
  const compiled = env.compile(expression);
  if (compiled.kind === 'error') throw compiled.error;
  const result = compiled.program.evaluate({ self, oldSelf });
  if (result.kind === 'error') throw result.error;
  return result.value;
}

describe('set lists', () => {
  const self = { tags: ['a', 'b', 'c'], nums: [1, 2], atomic: ['a', 'b'], plain: ['a', 'b'] };

  it('equal a reordering of themselves; atomic and untyped lists stay ordered', () => {
    expect(value('self.tags == oldSelf.tags', self, { tags: ['c', 'a', 'b'] })).toBe(true);
    expect(value("self.tags == ['c', 'b', 'a']", self)).toBe(true);
    expect(value("self.tags != ['c', 'b', 'a']", self)).toBe(false);
    expect(value('self.nums == [2, 1]', self)).toBe(true);
    expect(value("self.atomic == ['b', 'a']", self)).toBe(false);
    expect(value("self.plain == ['b', 'a']", self)).toBe(false);
  });

  it('differ in size or members', () => {
    expect(value("self.tags == ['a', 'b']", self)).toBe(false);
    expect(value("self.tags == ['a', 'b', 'd']", self)).toBe(false);
    expect(value('self.nums == [1, 3]', self)).toBe(false);
  });

  it('compare by the left operand, as cel-go asks the left value', () => {
    expect(value("['c', 'b', 'a'] == self.tags", self)).toBe(false);
    expect(value("['a', 'b', 'c'] == self.tags", self)).toBe(true);
  });

  it('compare ignoring order inside objects and maps', () => {
    const s = { nested: { tags: ['x', 'y'] }, byName: { k: ['x', 'y'] } };
    const old = { nested: { tags: ['y', 'x'] }, byName: { k: ['y', 'x'] } };
    expect(value('self.nested == oldSelf.nested', s, old)).toBe(true);
    expect(value('self.byName == oldSelf.byName', s, old)).toBe(true);
    expect(value('self == oldSelf', s, old)).toBe(true);
    expect(value("self.byName == {'k': ['y', 'x']}", s)).toBe(true);
  });

  it('unite on +, keeping the left order, and the union is a set again', () => {
    expect(value("self.tags + ['d', 'a', 'd']", self)).toEqual(['a', 'b', 'c', 'd']);
    expect(value("self.tags + ['d'] == ['d', 'c', 'b', 'a']", self)).toBe(true);
    expect(value("self.plain + ['a']", self)).toEqual(['a', 'b', 'a']);
  });
});

describe('map lists', () => {
  const foo = [
    { key: 'keyValue', bar: { baz: 'value' } },
    { key: 'altKeyValue', bar: { baz: 'altValue' } },
  ];

  it('a reordered list equals the old one (kube: "Re-ordered list considered equal to old value due to map keys")', () => {
    expect(value('self.foo == oldSelf.foo', { foo }, { foo: [foo[1], foo[0]] })).toBe(true);
    expect(value('self == oldSelf', { foo }, { foo: [foo[1], foo[0]] })).toBe(true);
  });

  it('an element changed under its key, or a key changed, makes them differ', () => {
    const changed = [{ key: 'altKeyValue', bar: { baz: 'other' } }, foo[0]];
    expect(value('self.foo == oldSelf.foo', { foo }, { foo: changed })).toBe(false);
    const rekeyed = [{ key: 'otherKeyValue', bar: { baz: 'altValue' } }, foo[0]];
    expect(value('self.foo == oldSelf.foo', { foo }, { foo: rekeyed })).toBe(false);
    expect(value('self.foo == oldSelf.foo', { foo }, { foo: [foo[0]] })).toBe(false);
  });

  it('keys of several fields, typed (int 1 is not the string "1")', () => {
    const pairs = [
      { a: 'x', b: 1, v: 'p' },
      { a: 'x', b: 2, v: 'q' },
    ];
    expect(value('self.pairs == oldSelf.pairs', { pairs }, { pairs: [pairs[1], pairs[0]] })).toBe(true);
    expect(value('self.pairs == oldSelf.pairs', { pairs }, { pairs: [{ ...pairs[1], v: 'r' }, pairs[0]] })).toBe(false);
  });

  it('merge on +: positions of the left kept, values of the right win, new keys appended', () => {
    const merged = value(
      'self.foo + oldSelf.foo',
      { foo },
      {
        foo: [
          { key: 'new', bar: { baz: 'n' } },
          { key: 'keyValue', bar: { baz: 'replaced' } },
        ],
      },
    );
    expect(merged).toEqual([
      expect.objectContaining({ key: 'keyValue', bar: expect.objectContaining({ baz: 'replaced' }) }),
      expect.objectContaining({ key: 'altKeyValue' }),
      expect.objectContaining({ key: 'new' }),
    ]);
    expect(value('self.foo + oldSelf.foo == [self.foo[1], self.foo[0]]', { foo }, { foo: [foo[1], foo[0]] })).toBe(true);
  });
});

// Cases from structured-merge-diff's fieldpath/set_test.go (EnsureNamedFieldsAreMembers is schema-aware: typed/).
import { describe, expect, it } from 'vitest';
import { makePath as P, pathString } from './path.ts';
import { keyElement as K, type PathElement, valueElement as V } from './path-element.ts';
import { FieldSet, FieldSetBuilder } from './set.ts';

const NS = (...paths: ReturnType<typeof P>[]) => FieldSet.fromPaths(paths);
const show = (s: FieldSet) => `\n${s.toString()}\n`;

describe('insert and has (TestSetInsertHas)', () => {
  const s1 = NS(
    P('foo', 0, 'bar', 'baz'),
    P('foo', 0, 'bar'),
    P('foo', 0),
    P('foo', 1, 'bar', 'baz'),
    P('foo', 1, 'bar'),
    P('qux', K({ name: 'first' })),
    P('qux', K({ name: 'first' }), 'bar'),
    P('qux', K({ name: 'second' }), 'bar'),
    P('canonicalOrder', K({ a: 'a', b: 'a', c: 'a', d: 'a', e: 'a', f: 'a' })),
  );
  const table: [ReturnType<typeof P>, boolean][] = [
    [P('qux', K({ name: 'second' })), false],
    [P('qux', K({ name: 'second' }), 'bar'), true],
    [P('qux', K({ name: 'first' })), true],
    [P('xuq', K({ name: 'first' })), false],
    [P('foo', 0), true],
    [P('foo', 0, 'bar'), true],
    [P('foo', 0, 'bar', 'baz'), true],
    [P('foo', 1), false],
    [P('foo', 1, 'bar'), true],
    [P('foo', 1, 'bar', 'baz'), true],
    [P('canonicalOrder', K({ f: 'a', e: 'a', d: 'a', c: 'a', b: 'a', a: 'a' })), true],
  ];
  it.each(table.map(([p, want]) => [pathString(p), p, want] as const))('%s', (_s, p, want) => {
    expect(s1.has(p)).toBe(want);
  });

  it('never holds the empty path', () => {
    expect(FieldSet.empty().has([])).toBe(false);
    expect(NS([]).has([])).toBe(false);
    expect(NS([]).isEmpty()).toBe(true);
  });

  it('insert returns a new set and leaves the original alone', () => {
    const a = NS(P('a', 'b'));
    const b = a.insert(P('a', 'c')).insert(P('d'));
    expect(a.toString()).toBe('.a.b');
    expect(b.toString()).toBe('.d\n.a.b\n.a.c');
    expect(b.insert(P('a', 'c'))).toBe(b);
    expect(b.equals(NS(P('d'), P('a', 'c'), P('a', 'b')))).toBe(true);
  });

  it('the builder reuses the descent of a shared prefix, and keeps going after build()', () => {
    const spec = { fieldName: 'spec' };
    const ports = { fieldName: 'ports' };
    const b = new FieldSetBuilder();
    const path: PathElement[] = [spec, ports];
    for (const port of [80, 443, 8080]) b.insert([...path, K({ port }), { fieldName: 'port' }]);
    b.insert(path)
      .insert([spec])
      .insert(P('spec', 'ports', K({ port: 80 }), 'name'));
    const first = b.build();
    b.insert(P('status'));
    expect(first.toString()).toBe(
      '.spec\n.spec.ports\n.spec.ports[port=80].name\n.spec.ports[port=80].port\n.spec.ports[port=443].port\n.spec.ports[port=8080].port',
    );
    expect(b.build().size()).toBe(first.size() + 1);
  });

  it('the builder inserts in any order', () => {
    const built = new FieldSetBuilder().insert(P('z')).insert(P('a', 'x')).insert(P('a')).insert(P('a', 'b')).insert(P('z')).build();
    expect(built.paths()).toEqual([P('a'), P('z'), P('a', 'b'), P('a', 'x')]);
  });
});

describe('navigation helpers', () => {
  const s = NS(P('spec', 'a'), P('spec'), P('spec', 'b', 'c'));
  it('members, children, child, withPrefix, hasMember', () => {
    expect(s.members()).toEqual([{ fieldName: 'spec' }]);
    expect([...s.children()].map(([pe, sub]) => [pe, sub.toString()])).toEqual([[{ fieldName: 'spec' }, '.a\n.b.c']]);
    expect(s.hasMember({ fieldName: 'spec' })).toBe(true);
    expect(s.hasMember({ fieldName: 'a' })).toBe(false);
    expect(s.withPrefix({ fieldName: 'spec' }).toString()).toBe('.a\n.b.c');
    expect(s.child({ fieldName: 'status' })).toBeUndefined();
    expect(s.withPrefix({ fieldName: 'status' }).isEmpty()).toBe(true);
  });
});

describe('TestSetString / TestSetIterSize', () => {
  it('a single entry prints as its path', () => {
    const p = P('foo', K({ name: 'first' }));
    expect(NS(p).toString()).toBe(pathString(p));
  });

  it('iterating rebuilds the set, size and isEmpty tracking each insert', () => {
    const s1 = NS(
      P('foo', 0, 'bar', 'baz'),
      P('foo', 0, 'bar', 'zot'),
      P('foo', 0, 'bar'),
      P('foo', 0),
      P('foo', 1, 'bar', 'baz'),
      P('foo', 1, 'bar'),
      P('qux', K({ name: 'first' })),
      P('qux', K({ name: 'first' }), 'bar'),
      P('qux', K({ name: 'second' }), 'bar'),
    );
    let s2 = FieldSet.empty();
    let added = 0;
    for (const p of s1.paths()) {
      expect(s2.size()).toBe(added);
      expect(s2.isEmpty()).toBe(added === 0);
      s2 = s2.insert(p);
      added++;
    }
    expect(added).toBe(9);
    expect(s1.equals(s2)).toBe(true);
  });

  it('iterates a node’s members, then its children depth first', () => {
    const s = NS(P('b'), P('a', 'x'), P('a'), P('c', 'y', 'z'), P('a', K({ k: 1 })), P('a', 2), P('a', V('v')));
    expect(s.paths().map(pathString)).toEqual(['.a', '.b', '.a.x', '.a[k=1]', '.a[="v"]', '.a[2]', '.c.y.z']);
  });
});

describe('equals (TestSetEquals)', () => {
  const table: [FieldSet, FieldSet, boolean][] = [
    [NS(P('foo')), NS(P('bar')), false],
    [NS(P('foo')), NS(P('foo')), true],
    [NS(), NS(P(0, 'foo')), false],
    [NS(P(1, 'foo')), NS(P(0, 'foo')), false],
    [NS(P(1, 'foo')), NS(P(1, 'foo', 'bar')), false],
    [NS(P(0), P(1)), NS(P(1), P(0)), true],
    [NS(P('foo', 0), P('foo', 1)), NS(P('foo', 1), P('foo', 0)), true],
    [
      NS(P('foo', 0), P('foo'), P('bar', 'baz'), P('qux', K({ name: 'first' }))),
      NS(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', K({ name: 'second' }))),
      false,
    ],
  ];
  it.each(table.map((row, i) => [i, ...row] as const))('case %i', (_i, a, b, equal) => {
    expect(a.equals(b)).toBe(equal);
    expect(b.equals(a)).toBe(equal);
  });
});

describe('union, intersection, difference (TestSetUnion, TestSetIntersectionDifference)', () => {
  it('union', () => {
    const s1 = NS(P('foo', 0), P('foo'), P('bar', 'baz'), P('qux', K({ name: 'first' })), P('parent', 'child', 'grandchild'));
    const s2 = NS(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', K({ name: 'second' })), P('parent', 'child'));
    const u = NS(
      P('foo', 0),
      P('foo', 1),
      P('foo'),
      P('bar', 'baz'),
      P('bar'),
      P('qux', K({ name: 'first' })),
      P('qux', K({ name: 'second' })),
      P('parent', 'child'),
      P('parent', 'child', 'grandchild'),
    );
    expect(show(s1.union(s2))).toBe(show(u));
    expect(s1.union(s2).equals(u)).toBe(true);
    expect(s2.union(s1).equals(u)).toBe(true);
  });

  const nameFirst = K({ name: 'first' });
  const s1 = NS(
    P('a0'),
    P('a1'),
    P('foo', 0),
    P('foo', 1),
    P('b0', nameFirst),
    P('b1', nameFirst),
    P('bar', 'c0'),
    P('cp', nameFirst, 'child'),
  );
  const s2 = NS(P('a1'), P('a2'), P('foo', 1), P('foo', 2), P('b1', nameFirst), P('b2', nameFirst), P('bar', 'c2'), P('cp', nameFirst));
  const i = NS(P('a1'), P('foo', 1), P('b1', nameFirst));

  it('intersection', () => {
    expect(show(s1.intersection(s2))).toBe(show(i));
    expect(s1.intersection(s2).equals(i)).toBe(true);
  });
  it('s1 - s2', () => {
    const want = NS(P('a0'), P('foo', 0), P('b0', nameFirst), P('bar', 'c0'), P('cp', nameFirst, 'child'));
    expect(show(s1.difference(s2))).toBe(show(want));
  });
  it('s2 - s1', () => {
    const want = NS(P('a2'), P('foo', 2), P('b2', nameFirst), P('bar', 'c2'), P('cp', nameFirst));
    expect(show(s2.difference(s1))).toBe(show(want));
  });
  it('intersection the hard way', () => {
    const u = s1.union(s2);
    const notIntersection = s2.difference(s1).union(s1.difference(s2));
    expect(show(u.difference(notIntersection))).toBe(show(i));
  });
  it('leaves its operands unchanged', () => {
    const before = [s1.toString(), s2.toString()];
    s1.union(s2);
    s1.intersection(s2);
    s1.difference(s2);
    s1.recursiveDifference(s2);
    s1.leaves();
    expect([s1.toString(), s2.toString()]).toEqual(before);
  });
});

describe('leaves (TestSetLeaves)', () => {
  const a = K({ name: 'a' });
  const p = K({ name: 'p' });
  const table: [string, FieldSet, FieldSet][] = [
    ['empty set', NS(), NS()],
    ['all leaves', NS(P('path1'), P('path2'), P('path3')), NS(P('path1'), P('path2'), P('path3'))],
    ['only one leaf', NS(P('root'), P('root', 'l1'), P('root', 'l1', 'l2'), P('root', 'l1', 'l2', 'l3')), NS(P('root', 'l1', 'l2', 'l3'))],
    [
      'multiple values, check for overwrite',
      NS(P('root', a), P('root', a, 'name'), P('root', a, 'value', 'b'), P('root', a, 'value', 'c')),
      NS(P('root', a, 'name'), P('root', a, 'value', 'b'), P('root', a, 'value', 'c')),
    ],
    [
      'multiple values and nested',
      NS(P('root', a), P('root', a, 'name'), P('root', a, 'value', 'b'), P('root', a, 'value', 'b', 'd'), P('root', a, 'value', 'c')),
      NS(P('root', a, 'name'), P('root', a, 'value', 'b', 'd'), P('root', a, 'value', 'c')),
    ],
    [
      'all-in-one',
      NS(
        P('root'),
        P('root', a),
        P('root', a, 'name'),
        P('root', a, 'value', 'b'),
        P('root', a, 'value', 'b', 'c'),
        P('root', a, 'value', 'd'),
        P('root', a, 'value', 'e'),
        P('root', 'x'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', p),
        P('root', p, 'name'),
        P('root', p, 'value', 'q'),
      ),
      NS(
        P('root', a, 'name'),
        P('root', a, 'value', 'b', 'c'),
        P('root', a, 'value', 'd'),
        P('root', a, 'value', 'e'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', p, 'name'),
        P('root', p, 'value', 'q'),
      ),
    ],
  ];
  it.each(table)('%s', (_name, input, want) => {
    expect(show(input.leaves())).toBe(show(want));
    expect(input.leaves().equals(want)).toBe(true);
  });
});

describe('difference and recursiveDifference (TestSetDifference)', () => {
  const table: [string, FieldSet, FieldSet, FieldSet, FieldSet][] = [
    ['removes simple path', NS(P('a')), NS(P('a')), NS(), NS()],
    ['removes direct path', NS(P('a', 'b', 'c')), NS(P('a', 'b', 'c')), NS(), NS()],
    [
      'only removes matching child',
      NS(P('a', 'b', 'c'), P('b', 'b', 'c')),
      NS(P('a', 'b', 'c')),
      NS(P('b', 'b', 'c')),
      NS(P('b', 'b', 'c')),
    ],
    ['does not remove parent of specific path', NS(P('a')), NS(P('a', 'aa')), NS(P('a')), NS(P('a'))],
    ['RecursiveDifference removes nested path', NS(P('a', 'b', 'c')), NS(P('a')), NS(P('a', 'b', 'c')), NS()],
    [
      'RecursiveDifference only removes nested path for matching children',
      NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      NS(P('a', 'aa')),
      NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      NS(P('a', 'ab', 'aba')),
    ],
    [
      'RecursiveDifference removes all matching children',
      NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      NS(P('a')),
      NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      NS(),
    ],
  ];
  it.each(table)('%s', (_name, a, b, diff, recursive) => {
    expect(show(a.difference(b))).toBe(show(diff));
    expect(a.difference(b).equals(diff)).toBe(true);
    expect(show(a.recursiveDifference(b))).toBe(show(recursive));
    expect(a.recursiveDifference(b).equals(recursive)).toBe(true);
  });
});

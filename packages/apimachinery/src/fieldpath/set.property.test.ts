// Set-algebra laws over random sets drawn from SMD's own alphabet of path elements (set_test.go randomPathMaker),
// and FieldsV1 round trips of those sets (serialize_test.go TestSerializeV1).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldSetFromFieldsV1, fieldSetFromFieldsV1Json, fieldSetToFieldsV1, fieldSetToFieldsV1Json } from './fields-v1.ts';
import { comparePaths, makePath, type Path } from './path.ts';
import {
  comparePathElements,
  keyElement as K,
  type PathElement,
  parsePathElement,
  serializePathElement,
  valueElement as V,
} from './path-element.ts';
import { FieldSet } from './set.ts';

const alphabet: PathElement[] = [
  ...makePath('aaa', 'aab', 'aac', 'aad', 'aae', 'aaf', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
  K({ name: 'привет' }),
  K({ name: '你好' }),
  K({ name: 'こんにちは' }),
  K({ name: '안녕하세요' }),
  K({ name: 'مرحبا' }),
  K({ name: 'first' }),
  K({ name: 'second' }),
  K({ port: 443, protocol: 'tcp' }),
  K({ port: 443, protocol: 'udp' }),
  K({ key: ' value with spaces ' }),
  K({ lang: 'en-US' }),
  K({ 'unicode-key': 'unicode-value-🔥' }),
  // biome-ignore lint/suspicious/noApproximativeNumericConstant: SMD's alphabet holds this exact float
  ...[1, 2, 3, 'aa', 'ab', true, 0, -1, 3.14159, 'string with spaces', 'string with "quotes"', 'unicode-string-你好', false].map(V),
  ...makePath(1, 2, 3, 4, 0, 5, 100, 2147483648),
];

const pathArb: fc.Arbitrary<Path> = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 4 });
const pathsArb = fc.array(pathArb, { maxLength: 30 });
const setArb = pathsArb.map((paths) => FieldSet.fromPaths(paths));

/** The members as a sorted, duplicate-free list of paths: the set's meaning, independent of its tree. */
const key = (p: Path) => JSON.stringify(p);
const asList = (s: FieldSet): string[] => s.paths().sort(comparePaths).map(key);

describe('FieldSet laws', () => {
  it('membership: has(p) ⇔ p was inserted', () => {
    fc.assert(
      fc.property(pathsArb, pathArb, (paths, probe) => {
        const s = FieldSet.fromPaths(paths);
        const inserted = paths.some((p) => comparePaths(p, probe) === 0);
        expect(s.has(probe)).toBe(inserted);
        expect(s.size()).toBe(new Set(paths.map(key)).size);
      }),
    );
  });

  it('union, intersection and difference are the set operations on members', () => {
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        const la = new Set(asList(a));
        const lb = new Set(asList(b));
        expect(asList(a.union(b))).toEqual(asList(FieldSet.fromPaths([...a.paths(), ...b.paths()])));
        expect(new Set(asList(a.intersection(b)))).toEqual(new Set([...la].filter((p) => lb.has(p))));
        expect(new Set(asList(a.difference(b)))).toEqual(new Set([...la].filter((p) => !lb.has(p))));
      }),
    );
  });

  it('algebraic laws', () => {
    fc.assert(
      fc.property(setArb, setArb, setArb, (a, b, c) => {
        expect(a.union(b).equals(b.union(a))).toBe(true);
        expect(a.intersection(b).equals(b.intersection(a))).toBe(true);
        expect(
          a
            .union(b)
            .union(c)
            .equals(a.union(b.union(c))),
        ).toBe(true);
        expect(
          a
            .intersection(b)
            .intersection(c)
            .equals(a.intersection(b.intersection(c))),
        ).toBe(true);
        expect(a.union(a).equals(a)).toBe(true);
        expect(a.intersection(a).equals(a)).toBe(true);
        expect(a.difference(a).isEmpty()).toBe(true);
        expect(a.union(FieldSet.empty()).equals(a)).toBe(true);
        expect(a.intersection(FieldSet.empty()).isEmpty()).toBe(true);
        // a = (a − b) ∪ (a ∩ b), disjointly
        expect(a.difference(b).union(a.intersection(b)).equals(a)).toBe(true);
        expect(a.difference(b).intersection(b).isEmpty()).toBe(true);
        // distributivity and De Morgan-style difference laws
        expect(a.intersection(b.union(c)).equals(a.intersection(b).union(a.intersection(c)))).toBe(true);
        expect(a.difference(b.union(c)).equals(a.difference(b).difference(c))).toBe(true);
        // SMD's intersection built the hard way
        const hard = a.union(b).difference(b.difference(a).union(a.difference(b)));
        expect(hard.equals(a.intersection(b))).toBe(true);
        expect(a.union(b).size()).toBe(a.size() + b.size() - a.intersection(b).size());
      }),
    );
  });

  it('recursiveDifference removes what difference removes and everything under a member of the other set', () => {
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        const r = a.recursiveDifference(b);
        const bPaths = b.paths();
        for (const p of a.paths()) {
          const underB = bPaths.some((q) => q.length <= p.length && comparePaths(q, p.slice(0, q.length)) === 0);
          expect(r.has(p)).toBe(!underB);
        }
        expect(r.difference(a).isEmpty()).toBe(true);
      }),
    );
  });

  it('leaves are the members with no member below them', () => {
    fc.assert(
      fc.property(setArb, (a) => {
        const all = a.paths();
        const want = all.filter((p) => !all.some((q) => q.length > p.length && comparePaths(q.slice(0, p.length), p) === 0));
        expect(asList(a.leaves())).toEqual(asList(FieldSet.fromPaths(want)));
      }),
    );
  });

  it('insert one path at a time equals building at once, in any order', () => {
    fc.assert(
      fc.property(pathsArb, (paths) => {
        let s = FieldSet.empty();
        for (const p of paths) s = s.insert(p);
        expect(s.equals(FieldSet.fromPaths([...paths].reverse()))).toBe(true);
      }),
    );
  });
});

describe('FieldsV1 round trip (TestSerializeV1)', () => {
  it('decode(encode(s)) equals s, and re-encoding is byte-identical', () => {
    fc.assert(
      fc.property(setArb, (s) => {
        const text = fieldSetToFieldsV1Json(s);
        expect(JSON.stringify(fieldSetToFieldsV1(s))).toBe(text);
        const back = fieldSetFromFieldsV1Json(text);
        expect(back.equals(s)).toBe(true);
        expect(fieldSetFromFieldsV1(fieldSetToFieldsV1(s)).equals(s)).toBe(true);
        expect(fieldSetToFieldsV1Json(back)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

describe('PathElement order and serialization over any JSON value', () => {
  const value = fc.jsonValue({ maxDepth: 2 });
  const element: fc.Arbitrary<PathElement> = fc.oneof(
    fc.string().map((fieldName) => ({ fieldName })),
    fc.dictionary(fc.string(), value, { minKeys: 1, maxKeys: 3 }).map((key) => ({ key })),
    value.map((v) => ({ value: v })),
    fc.nat().map((index) => ({ index })),
  );

  it('parse(serialize(pe)) is the same element, and serializes the same', () => {
    fc.assert(
      fc.property(element, (pe) => {
        const text = serializePathElement(pe);
        const back = parsePathElement(text);
        expect(comparePathElements(back, pe)).toBe(0);
        expect(serializePathElement(back)).toBe(text);
      }),
    );
  });

  it('the order is a total order', () => {
    fc.assert(
      fc.property(element, element, element, (a, b, c) => {
        const ab = comparePathElements(a, b);
        expect(comparePathElements(b, a)).toBe(-ab || 0);
        if (ab <= 0 && comparePathElements(b, c) <= 0) expect(comparePathElements(a, c)).toBeLessThanOrEqual(0);
        // equal elements serialize alike, so FieldsV1 never holds two keys for one element
        if (ab === 0) expect(serializePathElement(a)).toBe(serializePathElement(b));
      }),
    );
  });
});

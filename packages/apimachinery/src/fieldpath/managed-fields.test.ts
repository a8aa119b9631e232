// Cases from structured-merge-diff's fieldpath/managers_test.go and merge/conflict_test.go.
import { describe, expect, it } from 'vitest';
import {
  type Conflict,
  ConflictsError,
  conflictString,
  conflictsFromManagers,
  conflictsString,
  type ManagedFields,
  managedFieldsDifference,
  managedFieldsEqual,
  type VersionedSet,
} from './managed-fields.ts';
import { makePath as P } from './path.ts';
import { keyElement as K } from './path-element.ts';
import { FieldSet } from './set.ts';

const NS = (...paths: ReturnType<typeof P>[]) => FieldSet.fromPaths(paths);
const VS = (set: FieldSet, apiVersion: string, applied = false): VersionedSet => ({ set, apiVersion, applied });
const MF = (entries: Record<string, VersionedSet> = {}): ManagedFields => new Map(Object.entries(entries));

describe('managedFieldsDifference (TestManagersEquals)', () => {
  const nsb = () => NS(P('numeric'), P('string'), P('bool'));
  const table: [string, ManagedFields, ManagedFields, ManagedFields][] = [
    ['Empty sets', MF(), MF(), MF()],
    ['Empty RHS', MF({ default: VS(nsb(), 'v1') }), MF(), MF({ default: VS(nsb(), 'v1') })],
    ['Empty LHS', MF(), MF({ default: VS(nsb(), 'v1') }), MF({ default: VS(nsb(), 'v1') })],
    ['Different managers', MF({ one: VS(nsb(), 'v1') }), MF({ two: VS(nsb(), 'v1') }), MF({ one: VS(nsb(), 'v1'), two: VS(nsb(), 'v1') })],
    [
      'Same manager, different version',
      MF({ one: VS(NS(P('numeric'), P('string'), P('integer')), 'v1') }),
      MF({ one: VS(nsb(), 'v2') }),
      MF({ one: VS(nsb(), 'v2') }),
    ],
    [
      'Set difference',
      MF({ one: VS(NS(P('numeric'), P('string')), 'v1') }),
      MF({ one: VS(NS(P('string'), P('bool')), 'v1') }),
      MF({ one: VS(NS(P('numeric'), P('bool')), 'v1') }),
    ],
  ];
  it.each(table)('%s', (_name, lhs, rhs, want) => {
    const got = managedFieldsDifference(lhs, rhs);
    expect(managedFieldsEqual(got, want)).toBe(true);
  });

  it('drops a manager whose sets are equal', () => {
    expect(managedFieldsDifference(MF({ a: VS(NS(P('x')), 'v1') }), MF({ a: VS(NS(P('x')), 'v1', true) })).size).toBe(0);
  });
});

describe('managedFieldsEqual (TestManagersDifference)', () => {
  const table: [string, ManagedFields, ManagedFields, boolean][] = [
    ['Empty sets', MF(), MF(), true],
    ['Empty RHS', MF({ default: VS(NS(P('numeric')), 'v1') }), MF(), false],
    ['Different managers', MF({ one: VS(NS(P('numeric')), 'v1') }), MF({ two: VS(NS(P('numeric')), 'v1') }), false],
    ['Same manager, different version', MF({ one: VS(NS(P('numeric')), 'v1') }), MF({ one: VS(NS(P('numeric')), 'v2') }), false],
    ['Same manager, different applied', MF({ one: VS(NS(P('numeric')), 'v1') }), MF({ one: VS(NS(P('numeric')), 'v1', true) }), false],
    ['Set difference', MF({ one: VS(NS(P('numeric'), P('string')), 'v1') }), MF({ one: VS(NS(P('string')), 'v1') }), false],
    ['Same everything', MF({ one: VS(NS(P('numeric'), P('string')), 'v1') }), MF({ one: VS(NS(P('string'), P('numeric')), 'v1') }), true],
  ];
  it.each(table)('%s', (_name, a, b, equal) => {
    expect(managedFieldsEqual(a, b)).toBe(equal);
    expect(managedFieldsEqual(b, a)).toBe(equal);
  });
});

describe('conflicts (merge/conflict_test.go)', () => {
  it('TestNewFromSets: grouped by sorted manager', () => {
    const got = conflictsFromManagers(
      MF({
        Bob: VS(NS(P('key'), P('list', K({ key: 'a', id: 2 }), 'id')), 'v1'),
        Alice: VS(NS(P('value'), P('list', K({ key: 'a', id: 2 }), 'key')), 'v1'),
      }),
    );
    expect(conflictsString(got)).toBe(
      'conflicts with "Alice":\n- .value\n- .list[id=2,key="a"].key\nconflicts with "Bob":\n- .key\n- .list[id=2,key="a"].id',
    );
  });

  it('TestToSet: the conflicts’ paths as one set', () => {
    const conflicts = conflictsFromManagers(
      MF({
        Bob: VS(NS(P('key'), P('list', K({ key: 'a', id: 2 }), 'id')), 'v1'),
        Alice: VS(NS(P('value'), P('list', K({ key: 'a', id: 2 }), 'key')), 'v1'),
      }),
    );
    const want = NS(P('key'), P('value'), P('list', K({ key: 'a', id: 2 }), 'id'), P('list', K({ key: 'a', id: 2 }), 'key'));
    expect(FieldSet.fromPaths(conflicts.map((c) => c.path)).equals(want)).toBe(true);
  });

  it('TestConflictsFromManagers', () => {
    const got = conflictsFromManagers(
      MF({
        Bob: VS(
          NS(P('obj', 'template', 'obj', 'list', K({ name: 'a' }), 'id'), P('obj', 'template', 'obj', 'list', K({ name: 'a' }), 'key')),
          'v1',
        ),
      }),
    );
    expect(conflictsString(got)).toBe(
      'conflicts with "Bob":\n- .obj.template.obj.list[name="a"].id\n- .obj.template.obj.list[name="a"].key',
    );
  });

  it('a single conflict prints on one line; the error carries the list', () => {
    const c: Conflict = { manager: '{"manager":"m","operation":"Update","apiVersion":"v1"}', path: P('data', 'a') };
    expect(conflictString(c)).toBe(
      'conflict with "{\\"manager\\":\\"m\\",\\"operation\\":\\"Update\\",\\"apiVersion\\":\\"v1\\"}": .data.a',
    );
    const err = new ConflictsError([c]);
    expect(err.message).toBe(conflictString(c));
    expect(err.conflicts).toEqual([c]);
  });
});

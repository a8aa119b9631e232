// Properties of apply and update over random objects of a schema with a struct, a granular map, a map-list and
// a set (and over deduced values): what SSA promises a client whatever the sequence of writes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ManagedFields } from '../fieldpath/managed-fields.ts';
import { managedFieldsEqual } from '../fieldpath/managed-fields.ts';
import { deducedParser, type ParserSpec, typeOf } from './test-support/state.ts';
import { typedOps } from './typed-ops.ts';
import { Updater } from './updater.ts';

const parser: ParserSpec = {
  schema: `types:
- name: root
  map:
    fields:
    - name: spec
      type:
        namedType: spec
    - name: labels
      type:
        map:
          elementType:
            scalar: string
- name: spec
  map:
    fields:
    - name: replicas
      type:
        scalar: numeric
    - name: ports
      type:
        list:
          elementType:
            namedType: port
          elementRelationship: associative
          keys: [name]
    - name: finalizers
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
- name: port
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: port
      type:
        scalar: numeric
`,
  typeName: 'root',
};

const name = fc.constantFrom('a', 'b', 'c');
const objectArb = fc.record(
  {
    spec: fc.record(
      {
        replicas: fc.integer({ min: 0, max: 3 }),
        ports: fc.uniqueArray(fc.record({ name, port: fc.integer({ min: 1, max: 3 }) }), { selector: (p) => p.name, maxLength: 3 }),
        finalizers: fc.uniqueArray(name, { maxLength: 3 }),
      },
      { requiredKeys: [] },
    ),
    labels: fc.dictionary(name, fc.constantFrom('x', 'y'), { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);
const deducedArb = fc.dictionary(
  name,
  fc.oneof(fc.integer({ min: 0, max: 2 }), fc.dictionary(name, fc.integer({ min: 0, max: 2 }), { maxKeys: 2 })),
  {
    maxKeys: 3,
  },
);
const manager = fc.constantFrom('m1', 'm2', 'm3');

function hasEmptyContainer(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0 || v.some(hasEmptyContainer);
  if (typeof v === 'object' && v !== null) {
    const values = Object.values(v);
    return values.length === 0 || values.some(hasEmptyContainer);
  }
  return false;
}
const op = (arb: fc.Arbitrary<unknown>) => fc.record({ kind: fc.constantFrom('apply', 'forceApply', 'update'), manager, object: arb });

for (const [label, spec, arb] of [
  ['typed', parser, objectArb],
  ['deduced', deducedParser, deducedArb],
] as const) {
  describe(label, () => {
    const type = typeOf(spec, 'v1');
    const run = (ops: { kind: string; manager: string; object: unknown }[]) => {
      const u = new Updater({ typeFor: () => type });
      let live: unknown = null;
      let managers: ManagedFields = new Map();
      for (const o of ops) {
        try {
          if (o.kind === 'update') {
            ({ object: live, managers } = u.update(live, o.object, 'v1', managers, o.manager));
          } else {
            const r = u.apply(live, o.object, 'v1', managers, o.manager, o.kind === 'forceApply');
            live = r.object ?? live;
            managers = r.managers;
          }
        } catch (err) {
          if (!(err instanceof Error && err.name === 'ConflictsError')) throw err;
        }
      }
      return { u, live, managers };
    };

    it('no manager is left with an empty set, and an applier owns exactly its configuration', () => {
      fc.assert(
        fc.property(fc.array(op(arb), { maxLength: 6 }), manager, arb, (ops, m, config) => {
          const { u, live, managers } = run(ops);
          const r = u.apply(live, config, 'v1', managers, m, true);
          for (const vs of r.managers.values()) expect(vs.set.isEmpty()).toBe(false);
          const own = typedOps.toFieldSet(config, type);
          if (own.isEmpty()) expect(r.managers.has(m)).toBe(false);
          else expect(r.managers.get(m)?.set.equals(own)).toBe(true);
        }),
        { numRuns: 100 },
      );
    });

    // Empty maps and lists are left out: prune turns a map it emptied into null (as SMD's RemoveItems does), which
    // the next apply of `{}` changes again.
    it('applying the same configuration again changes nothing', () => {
      fc.assert(
        fc.property(fc.array(op(arb), { maxLength: 6 }), manager, arb, (ops, m, config) => {
          fc.pre(!hasEmptyContainer(config));
          const { u, live, managers } = run(ops);
          const first = u.apply(live, config, 'v1', managers, m, true);
          const again = u.apply(first.object ?? live, config, 'v1', first.managers, m, false);
          expect(again.object).toBeUndefined();
          expect(managedFieldsEqual(again.managers, first.managers)).toBe(true);
        }),
        { numRuns: 100 },
      );
    });

    // kube's field manager records an update under a manager of its own and unites it with the writer's entry; told
    // whom the write joins, the Updater leaves that manager the changed fields instead of taking them and giving them back.
    it('an update that joins a manager leaves the sets that recording it apart and uniting them leaves', () => {
      const WRITE = 'current-operation';
      fc.assert(
        fc.property(fc.array(op(arb), { maxLength: 6 }), manager, arb, (ops, m, next) => {
          const { u, live, managers } = run(ops);
          const unite = (joins?: string) => {
            const out = new Map(u.update(live, next, 'v1', managers, WRITE, joins).managers);
            const own = out.get(WRITE);
            out.delete(WRITE);
            const previous = out.get(m);
            if (own) out.set(m, previous ? { ...own, set: previous.set.union(own.set) } : own);
            return out;
          };
          expect(managedFieldsEqual(unite(m), unite())).toBe(true);
        }),
        { numRuns: 200 },
      );
    });

    it('a second applier of the same values shares them without conflict', () => {
      fc.assert(
        fc.property(arb, (config) => {
          const u = new Updater({ typeFor: () => type });
          const one = u.apply(null, config, 'v1', new Map(), 'one', false);
          const two = u.apply(one.object ?? null, config, 'v1', one.managers, 'two', false);
          const own = typedOps.toFieldSet(config, type);
          if (!own.isEmpty()) {
            expect(two.managers.get('one')?.set.equals(own)).toBe(true);
            expect(two.managers.get('two')?.set.equals(own)).toBe(true);
          }
        }),
        { numRuns: 100 },
      );
    });
  });
}

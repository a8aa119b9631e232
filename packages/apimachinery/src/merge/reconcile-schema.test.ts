import { describe, expect, it } from 'vitest';
import { FieldSet } from '../fieldpath/set.ts';
import { Schema, type TypedSchema } from '../typed/schema.ts';
import { reconcileFieldSetWithSchema } from './reconcile-schema.ts';

// A root struct with a granular map of strings (nothing atomic below it), an atomic struct, and a recursive type
// whose atomic list sits two levels down.
const schema = new Schema({
  types: [
    {
      name: 'root',
      map: {
        fields: [
          { name: 'data', type: { map: { elementType: { scalar: 'string' } } } },
          { name: 'atomicStruct', type: { namedType: 'pair', elementRelationship: 'atomic' } },
          { name: 'tree', type: { namedType: 'node' } },
          { name: 'broken', type: { namedType: 'missing' } },
        ],
      },
    },
    { name: 'pair', map: { fields: [{ name: 'x', type: { scalar: 'string' } }] } },
    {
      name: 'node',
      map: {
        fields: [
          { name: 'child', type: { namedType: 'node' } },
          { name: 'tags', type: { list: { elementType: { scalar: 'string' }, elementRelationship: 'atomic' } } },
        ],
      },
    },
  ],
});
const type: TypedSchema = { schema, typeRef: { namedType: 'root' } };
const f = (name: string) => ({ fieldName: name });
const set = (...paths: string[][]) => FieldSet.fromPaths(paths.map((p) => p.map(f)));

describe('reconcileFieldSetWithSchema', () => {
  it('leaves a set over types with nothing atomic below unchanged', () => {
    expect(reconcileFieldSetWithSchema(set(['data', 'a'], ['data', 'b']), type)).toBeUndefined();
  });

  it('collapses sub-fields of an atomic struct into the struct', () => {
    const out = reconcileFieldSetWithSchema(set(['data', 'a'], ['atomicStruct', 'x']), type);
    expect(out?.equals(set(['data', 'a'], ['atomicStruct']))).toBe(true);
  });

  it('finds an atomic list below a recursive type', () => {
    const out = reconcileFieldSetWithSchema(FieldSet.fromPaths([[f('tree'), f('child'), f('tags'), { index: 0 }]]), type);
    expect(out?.equals(set(['tree', 'child', 'tags']))).toBe(true);
  });

  it('remembers its answer per set without changing how the set compares', () => {
    const reconciled = set(['data', 'a'], ['atomicStruct', 'x']);
    const out = reconcileFieldSetWithSchema(reconciled, type);
    expect(reconcileFieldSetWithSchema(reconciled, type)).toBe(out);
    // A structural comparison of equal sets does not see which of them was reconciled.
    expect(reconciled).toEqual(set(['data', 'a'], ['atomicStruct', 'x']));
  });

  it('still reports a type that does not resolve', () => {
    expect(() => reconcileFieldSetWithSchema(set(['broken', 'y']), type)).toThrow(/could not resolve missing/);
  });
});

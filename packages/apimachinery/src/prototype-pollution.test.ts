import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fieldSetFromFieldsV1 } from './fieldpath/fields-v1.ts';
import { copyJson, jsonEqual } from './json-data.ts';
import { compare } from './typed/compare.ts';
import { Schema, type TypedSchema, UNTYPED_DEDUCED } from './typed/schema.ts';

// The write path walks JSON objects with for…in (no array of keys per object); own-key checks keep a polluted
// Object.prototype — a bug in some dependency — from adding keys to every object those walks see.
describe('JSON walks with an enumerable key on Object.prototype', () => {
  beforeEach(() => {
    Object.defineProperty(Object.prototype, 'polluted', { value: { x: 1 }, enumerable: true, configurable: true, writable: true });
  });
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>).polluted;
  });

  it('jsonEqual, copyJson, the typed compare and FieldsV1 decoding see own keys only', () => {
    const a = { kind: 'ConfigMap', data: { k: 'v' } };
    const b = JSON.parse(JSON.stringify(a));
    expect(jsonEqual(a, b)).toBe(true);
    expect(jsonEqual({ data: {} }, { data: {} })).toBe(true);
    expect(Object.keys(copyJson(a))).toEqual(['kind', 'data']);
    const deduced: TypedSchema = { schema: Schema.deduced(), typeRef: { namedType: UNTYPED_DEDUCED } };
    const c = compare(deduced, a, { ...b, data: { k: 'w' } });
    expect(c.removed.isEmpty() && c.added.isEmpty()).toBe(true);
    expect(c.modified.toString()).toBe('.data.k');
    expect(fieldSetFromFieldsV1({ 'f:data': { 'f:k': {} } }).toString()).toBe('.data.k');
  });
});

import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { compileSchemaValidator } from './custom-object-validator.ts';

const messages = (schema: JSONSchemaProps, value: unknown) => compileSchemaValidator(schema).validate(value).map(fieldErrorMessage);

describe('kube-openapi validators beyond structural schemas', () => {
  it('anyOf reports the failures of the branch that matched most checks', () => {
    const s: JSONSchemaProps = {
      anyOf: [
        { type: 'object', required: ['a', 'b'] },
        { type: 'object', required: ['c'], properties: { d: { type: 'string' } } },
      ],
    };
    // The second branch passes more checks (d's type), so its failure is the one shown.
    expect(messages(s, { d: 'x' })).toEqual([
      '<nil>: Invalid value: "": "" must validate at least one schema (anyOf)',
      'c: Required value',
    ]);
  });

  it('a forbidden property at the root is reported on <nil> with the leading dot kube-openapi writes', () => {
    expect(messages({ type: 'object', properties: { a: {} }, additionalProperties: false }, { a: 1, b: 2 })).toEqual([
      '<nil>: Invalid value: "b": .b in body is a forbidden property',
    ]);
    expect(messages({ type: 'object', additionalProperties: { type: 'string' } }, { k: 1 })).toEqual([
      'k: Invalid value: "integer": .k in body must be of type string: "integer"',
    ]);
  });

  it('patternProperties, dependencies and additionalItems', () => {
    expect(messages({ type: 'object', patternProperties: { '^x-': { type: 'integer' } } }, { 'x-a': 'no', y: 'free' })).toEqual([
      'x-a: Invalid value: "string": .x-a in body must be of type integer: "string"',
    ]);
    expect(messages({ type: 'object', dependencies: { a: ['b'] } }, { a: 1 })).toEqual([
      '<nil>: Invalid value: "": "" has a dependency on b',
    ]);
    expect(messages({ type: 'array', items: [{ type: 'string' }], additionalItems: false }, ['a', 'b'])).toEqual([
      `<nil>: Invalid value: "": array doesn't allow for additional items`,
    ]);
  });

  it("patterns are Go's regexp: RE2 syntax, and linear time where a backtracking engine would hang", () => {
    // `.` matches \r in Go, and `\z` is RE2's end of text.
    expect(messages({ type: 'string', pattern: '^a.b\\z' }, 'a\rb')).toEqual([]);
    // ~3^n steps for RegExp on n a's and a '!': minutes at 30; Go answers at once, so must this.
    const long = `${'a'.repeat(5000)}!`;
    expect(messages({ type: 'string', pattern: '^(a|a?)+$' }, long)).toEqual([
      `<nil>: Invalid value: "${long}":  in body should match '^(a|a?)+$'`,
    ]);
    expect(messages({ type: 'object', patternProperties: { '^(a|a?)+$': { type: 'integer' } } }, { [long]: 'x' })).toEqual([]);
  });

  it('a format on the wrong type is dropped as kube drops it; int-or-string checks integer and string', () => {
    expect(messages({ type: 'object', format: 'date' }, {})).toEqual([]);
    expect(messages({ type: 'integer', format: 'date' }, 3)).toEqual([]);
    expect(messages({ 'x-kubernetes-int-or-string': true, pattern: '^\\d+%$' }, '50')).toEqual([
      '<nil>: Invalid value: "50":  in body should match \'^\\d+%$\'',
    ]);
    expect(messages({ 'x-kubernetes-int-or-string': true, pattern: '^\\d+%$' }, 50)).toEqual([]);
  });

  it('an integer format makes a boolean a format mismatch, as kube-openapi words it', () => {
    expect(messages({ type: 'integer', format: 'int32' }, true)).toEqual(['<nil>: Invalid value: "":  in body must be of type int32: ""']);
  });

  it('the bound of an integer field is truncated, and a non-integral bound also fails its range check', () => {
    expect(messages({ type: 'integer', maximum: 10.5 }, 11)).toEqual([
      '<nil>: Invalid value: "": Maximum boundary value must be of type integer (default format) in ',
      '<nil>: Invalid value: 11:  in body should be less than or equal to 10.5',
    ]);
    expect(messages({ type: 'number', maximum: 4.5 }, 5)).toEqual(['<nil>: Invalid value: 5:  in body should be less than or equal to 4']);
  });
});

describe('formats kept for defaults', () => {
  it('without stripping, a string format kube does not support for a type still shapes the type check', () => {
    const s: JSONSchemaProps = { type: 'string', format: 'int32' };
    expect(messages(s, 5)).toEqual(['<nil>: Invalid value: "integer":  in body must be of type string: "integer"']);
    expect(compileSchemaValidator(s, { stripUnsupportedFormats: false }).validate(5).map(fieldErrorMessage)).toEqual([
      '<nil>: Invalid value: "int64":  in body must be of type int32: "int64"',
    ]);
  });
});

describe('keys are data', () => {
  it('a dependency named like an Object.prototype member is not taken as present', () => {
    expect(messages({ type: 'object', dependencies: { a: ['toString'] } }, { a: 1 })).toEqual([
      '<nil>: Invalid value: "": "" has a dependency on toString',
    ]);
  });
});

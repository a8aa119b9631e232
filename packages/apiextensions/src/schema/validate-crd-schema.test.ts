import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { exceedsSchemaDepth, validateCRDSchema } from './validate-crd-schema.ts';

const F = 'spec.versions[0].schema';
const P = `${F}.openAPIV3Schema`;
const check = (schema: JSONSchemaProps, statusSubresource = false): string[] =>
  validateCRDSchema(schema, F, { statusSubresource }).errors.map(fieldErrorMessage);

describe('validateCRDSchema (kube validateCustomResourceDefinitionValidation, without CEL)', () => {
  it('a good schema gives no errors and its structural form', () => {
    const r = validateCRDSchema(
      { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } } },
      F,
    );
    expect(r.errors).toEqual([]);
    expect(r.structural?.properties?.get('spec')?.properties?.get('size')?.default).toBe(1);
  });

  it('structural errors, then the rules on the schema, and no structural form', () => {
    const r = validateCRDSchema(
      { type: 'object', properties: { spec: {}, l: { type: 'array', items: { type: 'string' }, uniqueItems: true } } },
      F,
    );
    expect(r.errors.map(fieldErrorMessage)).toEqual([
      `${P}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ]);
    expect(r.structural).toBeUndefined();
  });

  it('defaults are checked only once the schema is structural', () => {
    expect(check({ type: 'object', properties: { spec: { type: 'object', default: { x: 1 } } } })).toEqual([
      `${P}.properties[spec].default: Invalid value: {"x":1}: must not have unknown fields`,
    ]);
    expect(check({ type: 'object', properties: { spec: { type: 'object', default: { x: 1 } }, bad: {} } })).toEqual([
      `${P}.properties[bad].type: Required value: must not be empty for specified object fields`,
    ]);
  });

  it('an update may keep a non-structural schema or unpruned defaults (the ratchets), still checking the schema rules', () => {
    const nonStructural: JSONSchemaProps = {
      type: 'object',
      properties: { spec: {}, l: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
    };
    expect(validateCRDSchema(nonStructural, F, { requireStructuralSchema: false }).errors.map(fieldErrorMessage)).toEqual([
      `${P}.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ]);
    const unpruned: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', default: { x: 1 } } } };
    expect(validateCRDSchema(unpruned, F, { requirePrunedDefaults: false }).errors).toEqual([]);
  });

  it('a pointer field set to false or "" counts as set at the root (Go zero values are only those of plain fields)', () => {
    const rootErr = (schema: JSONSchemaProps) => check(schema, true).some((m) => m.includes('fields are allowed at the root'));
    expect(rootErr({ type: 'object', default: false })).toBe(true);
    expect(rootErr({ type: 'object', 'x-kubernetes-list-type': '' } as JSONSchemaProps)).toBe(true);
    expect(rootErr({ type: 'object', uniqueItems: false, format: '', 'x-kubernetes-int-or-string': false })).toBe(false);
  });

  it('the depth walk reads untyped JSON: a field of the wrong type is skipped, not a crash', () => {
    expect(exceedsSchemaDepth({ allOf: 5, properties: 'x', items: [{ not: { type: 'string' } }] } as unknown as JSONSchemaProps, 3)).toBe(
      false,
    );
    expect(exceedsSchemaDepth({ items: [{ not: { type: 'string' } }] }, 2)).toBe(true);
  });

  it('nullable at the root', () => {
    expect(check({ type: 'object', nullable: true })).toEqual([
      `${F}.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root`,
    ]);
  });

  it("what newStructural refuses is said by the schema rules, newStructural's reason is not added", () => {
    expect(check({ type: 'object', properties: { a: { type: 'string', $ref: '#/x' } } })).toEqual([
      `${P}.properties[a].$ref: Forbidden: $ref is not supported`,
    ]);
  });

  it("newStructural's reason alone when nothing else is found", () => {
    expect(check({ type: 'object', properties: { a: { type: 'string', 'x-kubernetes-preserve-unknown-fields': false } } })).toEqual([
      `${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ]);
    expect(check({ type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' })).toEqual([
      `${P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`,
    ]);
  });

  describe('with the status subresource', () => {
    it('allows the root fields kube allows', () => {
      expect(
        check(
          {
            type: 'object',
            description: 'd',
            required: ['spec'],
            properties: { spec: { type: 'object' } },
            'x-kubernetes-validations': [{ rule: 'true' }],
          },
          true,
        ),
      ).toEqual([]);
    });

    it('only object as the root type', () => {
      expect(check({ type: 'string' }, true)).toEqual([
        `${P}.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
        `${P}.type: Invalid value: "string": must be object at the root`,
      ]);
    });

    it('refuses the first other root field, once', () => {
      const msgs = check(
        { type: 'object', anyOf: [{ required: ['a'] }], properties: { a: { type: 'string' } }, 'x-kubernetes-embedded-resource': true },
        true,
      );
      expect(msgs[0]).toBe(
        `${P}: Invalid value: {"type":"object","anyOf":[{"required":["a"]}],"properties":{"a":{"type":"string"}},"x-kubernetes-embedded-resource":true}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
      );
      expect(msgs.filter((m) => m.includes('status subresource'))).toHaveLength(1);
    });

    it('a field kube declares before type is reported instead of the type', () => {
      expect(check({ type: 'string', id: 'x' }, true)[0]).toMatch(
        /^spec\.versions\[0\]\.schema\.openAPIV3Schema: Invalid value: .*only \[Description/,
      );
    });
  });

  it('refuses a schema nested deeper than the walks can go, instead of running out of stack', () => {
    let deep: JSONSchemaProps = { type: 'string' };
    for (let i = 0; i < 9990; i++) deep = { type: 'array', items: deep };
    expect(check({ type: 'object', properties: { a: deep } })).toEqual([`${P}: Forbidden: must not be nested more than 1000 schemas deep`]);
    let ok: JSONSchemaProps = { type: 'string' };
    for (let i = 0; i < 998; i++) ok = { type: 'object', properties: { a: ok } };
    expect(check({ type: 'object', properties: { a: ok } })).toEqual([]);
    let under: JSONSchemaProps = { type: 'string' };
    for (let i = 0; i < 500; i++)
      under = { type: 'object', allOf: [{ not: { properties: { b: { maxLength: 1 } } } }], properties: { a: under } };
    // About 500 levels, each with junctors: within the limit, and every walk gets through.
    expect(check({ type: 'object', properties: { a: under } })).toEqual([]);
  });
});

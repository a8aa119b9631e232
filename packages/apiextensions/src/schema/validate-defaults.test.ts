import { type FieldError, fieldErrorMessage, fieldErrors } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { validateCustomObject } from '../validation/custom-object-validator.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';
import { type ValidateDefaultsOptions, validateDefaults } from './validate-defaults.ts';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const check = (schema: JSONSchemaProps, opts: ValidateDefaultsOptions = { isResourceRoot: true }): string[] =>
  validateDefaults(P, newStructural(schema), opts).map(fieldErrorMessage);
const obj = (properties: Record<string, JSONSchemaProps>, rest: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...rest,
});

describe('validateDefaults (kube defaulting/validation.go)', () => {
  it('accepts defaults that pruning leaves as they are', () => {
    expect(
      check(
        obj({
          spec: obj(
            { replicas: { type: 'integer', default: 1 }, tpl: obj({ a: { type: 'string' } }, { default: { a: 'x' } }) },
            { default: {} },
          ),
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, default: { anything: { goes: 1 } } },
          labels: { type: 'object', additionalProperties: { type: 'string' }, default: { a: 'b' } },
        }),
      ),
    ).toEqual([]);
  });

  it('refuses a default with fields the schema does not specify, at its path', () => {
    expect(check(obj({ spec: obj({ a: { type: 'string' } }, { default: { a: 'x', b: 'y' } }) }))).toEqual([
      `${P}.properties[spec].default: Invalid value: {"a":"x","b":"y"}: must not have unknown fields`,
    ]);
  });

  it('checks defaults of items and nested properties', () => {
    expect(
      check(
        obj({
          list: { type: 'array', items: obj({ a: { type: 'string' } }, { default: { z: 1 } }) },
          deep: obj({ inner: obj({}, { default: { q: true } }) }),
        }),
      ),
    ).toEqual([
      `${P}.properties[list].items.default: Invalid value: {"z":1}: must not have unknown fields`,
      `${P}.properties[deep].properties[inner].default: Invalid value: {"q":true}: must not have unknown fields`,
    ]);
  });

  it('an embedded resource default keeps its apiVersion, kind and metadata', () => {
    const embedded = obj(
      { spec: obj({ a: { type: 'string' } }) },
      {
        'x-kubernetes-embedded-resource': true,
        default: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' } }, spec: { a: 'y' } },
      },
    );
    expect(check(obj({ e: embedded }))).toEqual([]);
    expect(check(obj({ e: { ...embedded, default: { kind: 'ConfigMap', extra: 1 } } }))).toEqual([
      `${P}.properties[e].default: Invalid value: {"kind":"ConfigMap","extra":1}: must not have unknown fields`,
      `${P}.properties[e].default.apiVersion: Required value`,
    ]);
  });

  it('an embedded resource default needs valid apiVersion, kind and metadata before its value is checked', () => {
    const seen: string[] = [];
    const record = (path: string): FieldError[] => {
      seen.push(path);
      return [];
    };
    const e = obj(
      { spec: obj({}) },
      { 'x-kubernetes-embedded-resource': true, default: { apiVersion: 'a/b/c', kind: 'Config_Map', metadata: { name: 'a/b' } } },
    );
    expect(check(obj({ e }), { isResourceRoot: true, validateValue: record })).toEqual([
      `${P}.properties[e].default.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
      `${P}.properties[e].default.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      `${P}.properties[e].default.metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
    expect(seen).toEqual([]);
  });

  it('a default inside an embedded resource metadata is not prune-checked (metadata is kept whole)', () => {
    expect(
      check(
        obj({
          e: obj(
            { metadata: obj({ name: { type: 'string' } }, { default: { name: 'n', labels: { a: 'b' } } }) },
            { 'x-kubernetes-embedded-resource': true },
          ),
        }),
      ),
    ).toEqual([]);
  });

  it('without requirePrunedDefaults a default with unknown fields passes', () => {
    expect(check(obj({ spec: obj({}, { default: { b: 1 } }) }), { isResourceRoot: true, requirePrunedDefaults: false })).toEqual([]);
  });

  it('each default goes to the value validator with its path and the schema it sits in', () => {
    const seen: [string, unknown, string | undefined][] = [];
    const maxLength = (path: string, value: unknown, schema: JSONSchemaProps): FieldError[] => {
      seen.push([path, value, schema.type]);
      const max = schema.maxLength;
      return typeof value === 'string' && max !== undefined && value.length > max ? [fieldErrors.tooLong(path, max)] : [];
    };
    const schema = obj({ name: { type: 'string', maxLength: 3, default: 'toolong' }, n: { type: 'integer', default: 2 } });
    expect(check(schema, { isResourceRoot: true, validateValue: maxLength })).toEqual([
      `${P}.properties[name].default: Too long: may not be more than 3 bytes`,
    ]);
    expect(seen).toEqual([
      [`${P}.properties[name].default`, 'toolong', 'string'],
      [`${P}.properties[n].default`, 2, 'integer'],
    ]);
  });
});

describe('validateDefaults inside embedded metadata (kube\'s "v1.15 era tests for metadata defaults")', () => {
  const embedded = (properties: Record<string, JSONSchemaProps>) => ({ e: obj(properties, { 'x-kubernetes-embedded-resource': true }) });

  it('a metadata default is checked inside the object it would be part of', () => {
    expect(check(obj(embedded({ metadata: obj({}, { default: { labels: { bar: 'x y' } } }) })))).toEqual([
      `${P}.properties[e].properties[metadata].default: Invalid value: {"labels":{"bar":"x y"}}: must result in valid metadata: metadata.labels: Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
  });

  it('defaults of fields inside metadata, wrongly typed, are refused', () => {
    const msgs = check(
      obj(embedded({ metadata: obj({ name: { type: 'string', default: 42 }, labels: obj({ bar: { type: 'string', default: 42 } }) }) })),
    );
    expect(msgs).toEqual([
      `${P}.properties[e].properties[metadata].properties[name].default: Invalid value: 42: must result in valid metadata: metadata.name: Invalid value: 42: must be a string`,
      `${P}.properties[e].properties[metadata].properties[labels].properties[bar].default: Invalid value: 42: must result in valid metadata: metadata.labels: Invalid value: {"bar":42}: must be a map of string keys to string values`,
    ]);
  });

  it('valid defaults in apiVersion, kind and metadata pass, unknown metadata fields too (they are pruned at storage)', () => {
    expect(
      check(
        obj(
          embedded({
            apiVersion: { type: 'string', default: 'v1' },
            kind: { type: 'string', default: 'Pod' },
            metadata: obj({ name: { type: 'string', default: 'foo' } }, { default: { name: 'foo', unknown: 42 } }),
          }),
        ),
      ),
    ).toEqual([]);
  });
});

describe('validateDefaults with validateCustomObject as the value validator', () => {
  it("reports a default that breaks its schema with the value validator's message, at the default's path", () => {
    const validateValue = (path: string, value: unknown, schema: JSONSchemaProps) =>
      validateCustomObject(schema, value, { basePath: path });
    const schema = obj({
      spec: obj({
        size: { type: 'integer', minimum: 1, default: 0 },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        tags: { type: 'array', items: { type: 'string' }, default: [1] },
      }),
    });
    expect(check(schema, { isResourceRoot: true, validateValue })).toEqual([
      // kube-openapi names the value relative to the default: the root has no name, an item is `[0]`.
      `${P}.properties[spec].properties[size].default: Invalid value: 0:  in body should be greater than or equal to 1`,
      `${P}.properties[spec].properties[tags].default.[0]: Invalid value: "integer": [0] in body must be of type string: "integer"`,
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from './define-resource.ts';
import { invalidError } from './invalid-error.ts';
import { intOrString, listMap } from './kube-extensions.ts';
import { labelSelectorSchema } from './metav1.ts';
import { parseObject, validateObject } from './validate-object.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z.object({
        spec: z.object({
          replicas: z.int().min(0).max(10).default(1),
          name: z
            .string()
            .min(2)
            .max(5)
            .regex(/^[a-z]+$/)
            .optional(),
          color: z.enum(['red', 'blue']).optional(),
          email: z.email().optional(),
          step: z.number().multipleOf(5).gt(0).optional(),
          selector: labelSelectorSchema.optional(),
          containers: listMap(
            z
              .array(z.object({ name: z.string(), port: intOrString().optional() }))
              .max(2)
              .min(1),
            ['name'],
          ).optional(),
          env: z.record(z.string().max(3), z.string()).optional(),
          big: z
            .number()
            .refine((n) => n > 100, 'must be big')
            .optional(),
        }),
        status: z.object({ replicas: z.int().optional() }).optional(),
      }),
    },
  ],
});

const meta = { name: 'w1', namespace: 'default' };
const validate = (spec: unknown, extra: object = {}) =>
  validateObject(Widget, 'v1', { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: meta, spec, ...extra });

describe('validateObject', () => {
  it('accepts a valid object', () => {
    expect(
      validate({
        replicas: 2,
        containers: [
          { name: 'a', port: 80 },
          { name: 'b', port: 'http' },
        ],
      }),
    ).toEqual([]);
  });

  it('reports a missing field as FieldValueRequired', () => {
    expect(validateObject(Widget, 'v1', { metadata: meta })).toEqual([{ type: 'FieldValueRequired', field: 'spec' }]);
    expect(validate({ containers: [{ port: 1 }] })).toEqual([{ type: 'FieldValueRequired', field: 'spec.containers[0].name' }]);
  });

  it('reports a wrong type as FieldValueTypeInvalid in kube-apiserver words', () => {
    expect(validate({ replicas: 'x' })).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        badValue: 'string',
        detail: 'spec.replicas in body must be of type integer: "string"',
      },
    ]);
    expect(validate({ replicas: 1.5 })).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        badValue: 'number',
        detail: 'spec.replicas in body must be of type integer: "number"',
      },
    ]);
    expect(validate(null)[0]).toMatchObject({ field: 'spec', badValue: 'null', detail: 'spec in body must be of type object: "null"' });
  });

  it('names int-or-string types', () => {
    expect(validate({ containers: [{ name: 'a', port: true }] })).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.containers[0].port',
        badValue: 'boolean',
        detail: 'spec.containers[0].port in body must be of type integer,string: "boolean"',
      },
    ]);
  });

  it('prints map keys in brackets', () => {
    expect(validate({ selector: { matchLabels: { app: 1 } } })).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.selector.matchLabels[app]',
        badValue: 'integer',
        detail: 'spec.selector.matchLabels[app] in body must be of type string: "integer"',
      },
    ]);
    expect(validate({ env: { long: 'x' } })).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.env[long]', badValue: 'long', detail: 'Too big: expected string to have <=3 characters' },
    ]);
  });

  it('reports enums as FieldValueNotSupported with the allowed values', () => {
    const errs = validate({ color: 'pink' });
    expect(errs).toEqual([
      { type: 'FieldValueNotSupported', field: 'spec.color', badValue: 'pink', detail: 'supported values: "red", "blue"' },
    ]);
    expect(validate({ selector: { matchExpressions: [{ key: 'a', operator: 'Is' }] } })[0]).toMatchObject({
      type: 'FieldValueNotSupported',
      field: 'spec.selector.matchExpressions[0].operator',
    });
  });

  it('reports lengths, counts and bounds', () => {
    expect(validate({ name: 'abcdef' })).toEqual([
      { type: 'FieldValueTooLong', field: 'spec.name', detail: 'may not be more than 5 bytes' },
    ]);
    expect(validate({ name: 'a' })).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.name', badValue: 'a', detail: 'spec.name in body should be at least 2 chars long' },
    ]);
    expect(validate({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] })).toEqual([
      { type: 'FieldValueTooMany', field: 'spec.containers', badValue: 3, detail: 'must have at most 2 items' },
    ]);
    expect(validate({ containers: [] })).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.containers', badValue: [], detail: 'spec.containers in body should have at least 1 items' },
    ]);
    expect(validate({ replicas: -1 })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.replicas',
        badValue: -1,
        detail: 'spec.replicas in body should be greater than or equal to 0',
      },
    ]);
    expect(validate({ replicas: 11 })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.replicas',
        badValue: 11,
        detail: 'spec.replicas in body should be less than or equal to 10',
      },
    ]);
    expect(validate({ step: 0 })[0]).toMatchObject({ detail: 'spec.step in body should be greater than 0' });
    expect(validate({ step: 7 })[0]).toMatchObject({ detail: 'spec.step in body should be a multiple of 5' });
  });

  it('reports patterns, formats and refinements as FieldValueInvalid', () => {
    expect(validate({ name: 'AB' })).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.name', badValue: 'AB', detail: "spec.name in body should match '^[a-z]+$'" },
    ]);
    expect(validate({ email: 'nope' })).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.email', badValue: 'nope', detail: 'spec.email in body must be of type email: "nope"' },
    ]);
    expect(validate({ big: 1 })).toEqual([{ type: 'FieldValueInvalid', field: 'spec.big', badValue: 1, detail: 'must be big' }]);
  });

  it('rejects undeclared fields only for strict objects', () => {
    expect(validate({ nope: 1 })).toEqual([]);
    const Strict = defineResource({
      group: 'example.kapi.dev',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: false,
      versions: [{ name: 'v1', schema: z.object({ spec: z.strictObject({ a: z.string().optional() }) }) }],
    });
    expect(validateObject(Strict, 'v1', { metadata: { name: 'g' }, spec: { b: 1 } })).toEqual([
      { type: 'FieldValueForbidden', field: 'spec.b', detail: 'field not declared in schema' },
    ]);
  });

  it('validates metadata alongside the schema', () => {
    const errs = validateObject(Widget, 'v1', { metadata: { name: 'W1' }, spec: {} });
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual(['FieldValueInvalid metadata.name', 'FieldValueRequired metadata.namespace']);
  });

  it("checks names by the definition's validateName rule when it has one", () => {
    const Segment = defineResource({
      group: 'example.kapi.dev',
      kind: 'Segment',
      plural: 'segments',
      namespaced: false,
      versions: [{ name: 'v1', schema: z.object({}) }],
      validateName: (name) => (name.includes('/') ? ["may not contain '/'"] : []),
    });
    expect(validateObject(Segment, 'v1', { metadata: { name: 'system:basic-user' } })).toEqual([]);
    expect(validateObject(Segment, 'v1', { metadata: { name: 'a/b' } })).toEqual([
      { type: 'FieldValueInvalid', field: 'metadata.name', badValue: 'a/b', detail: "may not contain '/'" },
    ]);
    // An explicit rule still wins.
    expect(validateObject(Segment, 'v1', { metadata: { name: 'a:b' } }, { validateName: () => ['no'] })).toHaveLength(1);
  });

  it('rejects a body that is not an object', () => {
    expect(validateObject(Widget, 'v1', [])).toEqual([
      { type: 'FieldValueTypeInvalid', field: '', badValue: 'array', detail: 'body must be of type object: "array"' },
    ]);
  });

  it('throws for a version the kind does not have', () => {
    expect(() => validateObject(Widget, 'v9', {})).toThrow('Widget.example.kapi.dev has no version "v9"');
  });
});

describe('parseObject', () => {
  it('applies defaults and prunes undeclared fields', () => {
    const r = parseObject(Widget, 'v1', {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Widget',
      metadata: meta,
      spec: { nope: 1 },
      extra: true,
    });
    expect(r).toEqual({ ok: true, object: { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: meta, spec: { replicas: 1 } } });
  });

  it('returns the errors of an invalid object', () => {
    expect(parseObject(Widget, 'v1', { metadata: meta, spec: { replicas: 'x' } })).toMatchObject({
      ok: false,
      errors: [{ field: 'spec.replicas' }],
    });
  });
});

describe('invalidError', () => {
  it('is the 422 Invalid kube-apiserver returns, one cause per field error', () => {
    const err = invalidError(Widget, 'w1', validate({ replicas: 'x', color: 'pink' }));
    expect(err.code).toBe(422);
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Widget.example.kapi.dev "w1" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", spec.color: Unsupported value: "pink": supported values: "red", "blue"]',
      reason: 'Invalid',
      details: {
        name: 'w1',
        group: 'example.kapi.dev',
        kind: 'Widget',
        causes: [
          {
            reason: 'FieldValueTypeInvalid',
            message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
            field: 'spec.replicas',
          },
          { reason: 'FieldValueNotSupported', message: 'Unsupported value: "pink": supported values: "red", "blue"', field: 'spec.color' },
        ],
      },
      code: 422,
    });
  });
});

import { type FieldError, fieldErrors } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from './define-resource.ts';
import { toOpenAPISchema } from './openapi.ts';
import type { ResourceDefinition, ResourceVersion } from './resource-definition.ts';
import { decodeBody } from './store/decode.ts';
import { EMPTY_PATCH_META } from './strategic-merge/patch-meta.ts';
import { patchMetaFor } from './strategic-merge/schema-patch-meta.ts';
import { findUnknownFields } from './unknown-fields.ts';
import { parseObject, validateObject } from './validate-object.ts';
import type { VersionSchema } from './version-schema.ts';

// A VersionSchema that is not zod (as a CRD's structural schema will be): spec.size is a number, defaulting to 1;
// spec.size is the only field it declares. Every reader of a version's schema must go through it.
const handWritten: VersionSchema = {
  validate(body, opts) {
    const spec = { size: 1, ...(body.spec as Record<string, unknown>) };
    const errors: FieldError[] = [];
    if (typeof spec.size !== 'number') errors.push(fieldErrors.typeInvalid('spec.size', spec.size, 'must be a number'));
    if (opts.listSetsAndMaps) errors.push(...this.listSetAndMapErrors(body));
    return errors.length ? { errors } : { errors, value: { spec: { size: spec.size } } };
  },
  listSetAndMapErrors: () => [],
  decode: (body) => ({ spec: { size: 1, ...(body.spec as Record<string, unknown>) } }),
  unknownFields: (body) =>
    Object.keys((body.spec as Record<string, unknown>) ?? {})
      .filter((k) => k !== 'size')
      .map((k) => `spec.${k}`),
  openAPI: () => ({ type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'number', default: 1 } } } } }),
  patchMeta: () => EMPTY_PATCH_META,
};

const zodDef = defineResource({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ spec: z.object({ other: z.string() }) }) }],
});
const v1: ResourceVersion = { ...zodDef.storageVersion, schema: handWritten };
const def: ResourceDefinition = { ...zodDef, versions: [v1], storageVersion: v1, version: (n) => (n === 'v1' ? v1 : undefined) };
const meta = { name: 'w', namespace: 'default' };

describe('a version served through its VersionSchema', () => {
  it('validates, defaults and prunes by it', () => {
    expect(validateObject(def, 'v1', { metadata: meta, spec: { size: 'x' } })).toEqual([
      fieldErrors.typeInvalid('spec.size', 'x', 'must be a number'),
    ]);
    expect(parseObject(def, 'v1', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: meta, spec: { other: 'y' } })).toEqual({
      ok: true,
      object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: meta, spec: { size: 1 } },
    });
  });

  it('decodes by it and reports its unknown fields', () => {
    const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: meta, spec: { other: 'y' } };
    expect(findUnknownFields(def, 'v1', body)).toEqual(['spec.other']);
    expect(decodeBody(def, JSON.stringify(body), 'Warn')).toEqual({
      object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: meta, spec: { size: 1, other: 'y' } },
      warnings: ['unknown field "spec.other"'],
    });
  });

  it('publishes its OpenAPI schema and patch metadata', () => {
    expect(toOpenAPISchema(def, 'v1').properties?.spec).toEqual({ type: 'object', properties: { size: { type: 'number', default: 1 } } });
    expect(patchMetaFor(def, 'v1').field('spec')).toBe(EMPTY_PATCH_META);
  });
});

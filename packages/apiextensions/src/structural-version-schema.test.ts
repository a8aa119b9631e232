import { FakeClock, OMIT_VALUE, StatusError } from '@kapi/apimachinery';
import { defineResource, type ResourceDefinition, type ResourceVersion, Store, toOpenAPISchema } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { structuralVersionSchema } from './structural-version-schema.ts';

// A CRD version's schema: spec.replicas defaults to 1, spec.ports is a map list keyed by name.
const openAPIV3Schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
      },
    },
  },
};

// Built as a CRD's definition will be: a defineResource shell whose version serves the structural schema.
const shell = defineResource({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({}) }],
});
const v1: ResourceVersion = { ...shell.storageVersion, schema: structuralVersionSchema(openAPIV3Schema) };
const def: ResourceDefinition = { ...shell, versions: [v1], storageVersion: v1, version: (n) => (n === 'v1' ? v1 : undefined) };

const widget = (spec: unknown) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec });

async function refused(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe('a kind served through structuralVersionSchema by a Store over MemoryStorage', () => {
  let memory: MemoryStorage;
  let store: Store;
  beforeEach(() => {
    memory = new MemoryStorage({ compaction: false });
    store = new Store(def, { storage: memory, clock: new FakeClock() });
  });
  afterEach(async () => {
    await memory.close();
  });

  it('stores the object with defaults applied and unknown fields pruned, warning of them with fieldValidation Warn', async () => {
    const { object, warnings } = await store.create({ namespace: 'ns' }, widget({ ports: [{ name: 'http', port: 80 }], x: 1 }), {
      fieldValidation: 'Warn',
    });
    expect(warnings).toEqual(['unknown field "spec.x"']);
    expect((object as Record<string, unknown>).spec).toEqual({ replicas: 1, ports: [{ name: 'http', port: 80 }] });
    const got = await store.get({ namespace: 'ns' }, 'w');
    expect((got as Record<string, unknown>).spec).toEqual({ replicas: 1, ports: [{ name: 'http', port: 80 }] });
  });

  it('drops nulls of non-nullable fields without a default and defaults those with one, before validating', async () => {
    const { object } = await store.create({ namespace: 'ns' }, widget({ replicas: null, ports: null }));
    expect((object as Record<string, unknown>).spec).toEqual({ replicas: 1 });
  });

  it('refuses unknown fields with fieldValidation Strict', async () => {
    const err = await refused(store.create({ namespace: 'ns' }, widget({ x: 1 }), { fieldValidation: 'Strict' }));
    expect(err.code).toBe(400);
    expect(err.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.x"');
  });

  it('refuses a wrong type with 422 Invalid', async () => {
    const err = await refused(store.create({ namespace: 'ns' }, widget({ replicas: 'two' })));
    expect(err.code).toBe(422);
    expect(err.message).toBe(
      'Widget.example.com "w" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    );
  });

  it('refuses duplicate map-list keys', async () => {
    const err = await refused(store.create({ namespace: 'ns' }, widget({ ports: [{ name: 'a' }, { name: 'a', port: 2 }] })));
    expect(err.code).toBe(422);
    expect(err.message).toBe('Widget.example.com "w" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}');
  });

  it("publishes the schema as the version's OpenAPI", () => {
    const schema = toOpenAPISchema(def, 'v1');
    expect(schema.properties?.spec).toEqual(openAPIV3Schema.properties?.spec);
  });
});

describe('structuralVersionSchema', () => {
  const schema = structuralVersionSchema(openAPIV3Schema);
  const dupes = { spec: { ports: [{ name: 'a' }, { name: 'a' }] } };

  it('leaves the list-set/map check to the caller when not asked (the update ratchet)', () => {
    expect(schema.validate(dupes, { listSetsAndMaps: false })).toEqual({
      errors: [],
      value: { spec: { replicas: 1, ports: [{ name: 'a' }, { name: 'a' }] } },
    });
    expect(schema.listSetAndMapErrors(dupes)).toEqual([
      { type: 'FieldValueDuplicate', field: 'spec.ports[1]', badValue: OMIT_VALUE, detail: 'map[string]interface {}{"name":"a"}' },
    ]);
  });

  it('keeps unknown fields where the schema preserves them, and does not change its input', () => {
    const loose = structuralVersionSchema({
      type: 'object',
      properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object' } },
    });
    const body = { spec: { any: { thing: 1 } }, status: { x: 1 } };
    expect(loose.unknownFields(body)).toEqual(['status.x']);
    expect(loose.decode(body)).toEqual({ spec: { any: { thing: 1 } }, status: {} });
    expect(body).toEqual({ spec: { any: { thing: 1 } }, status: { x: 1 } });
  });
});

describe('x-kubernetes-validations through a Store over MemoryStorage', () => {
  const ruled: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('w')", message: 'name must start with w' }],
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: 'self.min <= self.max', messageExpression: "'min ' + string(self.min) + ' is above max ' + string(self.max)" },
          { rule: 'self.size >= oldSelf.size', message: 'size may not shrink', reason: 'FieldValueForbidden', fieldPath: '.size' },
        ],
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          size: { type: 'integer' },
          kind: { type: 'string', maxLength: 3 },
        },
      },
    },
  };
  const rv: ResourceVersion = { ...shell.storageVersion, schema: structuralVersionSchema(ruled) };
  const ruledDef: ResourceDefinition = { ...shell, versions: [rv], storageVersion: rv, version: (n) => (n === 'v1' ? rv : undefined) };
  let memory: MemoryStorage;
  let store: Store;
  beforeEach(() => {
    memory = new MemoryStorage({ compaction: false });
    store = new Store(ruledDef, { storage: memory, clock: new FakeClock() });
  });
  afterEach(async () => {
    await memory.close();
  });

  it('refuses a create that breaks a rule with kube’s 422, rules reading metadata too', async () => {
    const err = await refused(store.create({ namespace: 'ns' }, widget({ min: 3, max: 2, size: 1 })));
    expect(err.code).toBe(422);
    expect(err.message).toBe('Widget.example.com "w" is invalid: spec: Invalid value: "object": min 3 is above max 2');
    const named = { ...widget({ min: 1, max: 2, size: 1 }), metadata: { name: 'x', namespace: 'ns' } };
    expect((await refused(store.create({ namespace: 'ns' }, named))).message).toBe(
      'Widget.example.com "x" is invalid: <nil>: Invalid value: "object": name must start with w',
    );
  });

  it('runs no rule when the schema finds a blocking error', async () => {
    const err = await refused(store.create({ namespace: 'ns' }, widget({ min: 3, max: 2, kind: 'long' })));
    expect(err.message).toBe(
      'Widget.example.com "w" is invalid: [spec.kind: Too long: may not be more than 3 bytes, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it('checks a transition rule on update only', async () => {
    const { object } = await store.create({ namespace: 'ns' }, widget({ min: 1, max: 2, size: 5 }));
    const smaller = structuredClone(object) as unknown as Record<string, unknown> & { spec: { size: number } };
    smaller.spec.size = 4;
    const err = await refused(store.update({ namespace: 'ns' }, 'w', smaller));
    expect(err.code).toBe(422);
    expect(err.message).toBe('Widget.example.com "w" is invalid: spec.size: Forbidden: size may not shrink');
    smaller.spec.size = 6;
    expect(((await store.update({ namespace: 'ns' }, 'w', smaller)).object as unknown as typeof smaller).spec.size).toBe(6);
  });
});

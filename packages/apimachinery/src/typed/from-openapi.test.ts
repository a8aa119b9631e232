import { describe, expect, it } from 'vitest';
import { fromOpenAPI } from './from-openapi.ts';
import { Schema, UNTYPED_ATOMIC, UNTYPED_DEDUCED } from './schema.ts';

describe('fromOpenAPI (as kube-openapi schemaconv.ToSchemaFromOpenAPI)', () => {
  const { schema, typeRef } = fromOpenAPI({
    type: 'object',
    properties: {
      data: { type: 'object', additionalProperties: { type: 'string' } },
      selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      free: { type: 'object' },
      ports: {
        type: 'array',
        items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
      },
      finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      args: { type: 'array', items: { type: 'string' } },
      containers: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' } } },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
      target: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      port: { type: 'string', format: 'int-or-string' },
      when: { type: 'string', format: 'date-time' },
      blob: { type: 'string', format: 'byte' },
      enabled: { type: 'boolean' },
      ratio: { type: 'number' },
      open: {
        type: 'object',
        properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
        'x-kubernetes-preserve-unknown-fields': true,
      },
      closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    },
  });
  const root = schema.resolve(typeRef);
  const map = root?.map;
  if (!map) throw new Error('root is not a map');
  const atom = (name: string) => schema.resolve(schema.fieldType(map, name));

  it('maps are granular unless x-kubernetes-map-type says atomic', () => {
    expect(atom('data')).toEqual({ map: { fields: [], elementType: { scalar: 'string' } } });
    expect(atom('selector')?.map?.elementRelationship).toBe('atomic');
  });
  it('an object without properties or additionalProperties holds deduced values', () => {
    expect(atom('free')?.map?.elementType).toEqual({ namedType: UNTYPED_DEDUCED });
  });
  it('list types: map with keys (and key defaults), set, atomic by default, patch-merge-key as keys', () => {
    const ports = atom('ports')?.list;
    expect(ports?.elementRelationship).toBe('associative');
    expect(ports?.keys).toEqual(['port', 'protocol']);
    expect(ports && schema.resolve(ports.elementType)?.map?.fields?.find((f: { name: string }) => f.name === 'protocol')?.default).toBe(
      'TCP',
    );
    expect(atom('finalizers')?.list).toMatchObject({ elementRelationship: 'associative' });
    expect(atom('finalizers')?.list?.keys).toBeUndefined();
    expect(atom('args')?.list?.elementRelationship).toBe('atomic');
    expect(atom('containers')?.list).toMatchObject({ elementRelationship: 'associative', keys: ['name'] });
  });
  it('scalars: int-or-string, date-time and unknown formats are untyped; byte is a string', () => {
    expect(atom('target')?.scalar).toBe('untyped');
    expect(atom('target')?.map?.elementType).toEqual({ namedType: UNTYPED_DEDUCED });
    expect(atom('target')?.list?.elementType).toEqual({ namedType: UNTYPED_ATOMIC });
    expect(atom('port')).toEqual({ scalar: 'untyped' });
    expect(atom('when')).toEqual({ scalar: 'untyped' });
    expect(atom('blob')).toEqual({ scalar: 'string' });
    expect(atom('enabled')).toEqual({ scalar: 'boolean' });
    expect(atom('ratio')).toEqual({ scalar: 'numeric' });
  });
  it('preserve-unknown-fields makes the node and its descendants keep unknown keys as deduced', () => {
    expect(atom('open')?.map?.elementType).toEqual({ namedType: UNTYPED_DEDUCED });
    const known = atom('open')?.map;
    expect(known && schema.resolve(schema.fieldType(known, 'known'))?.map?.elementType).toEqual({ namedType: UNTYPED_DEDUCED });
    expect(atom('closed')?.map?.elementType).toBeUndefined();
  });
  it('the root with properties allows no unknown fields', () => {
    expect(map.elementType).toBeUndefined();
    expect(schema.fieldType(map, 'nope')).toEqual({});
  });

  it('refs resolve to definitions by their last segment, with a map-type override; Quantity is untyped', () => {
    const t = fromOpenAPI(
      {
        type: 'object',
        properties: {
          meta: { allOf: [{ $ref: '#/components/schemas/Meta' }], 'x-kubernetes-map-type': 'atomic' },
          amount: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' },
        },
      },
      {
        definitions: {
          Meta: { type: 'object', properties: { name: { type: 'string' } } },
          'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string' },
        },
      },
    );
    const m = t.schema.resolve(t.typeRef)?.map;
    if (!m) throw new Error('no map');
    expect(t.schema.fieldType(m, 'meta')).toEqual({ namedType: 'Meta', elementRelationship: 'atomic' });
    expect(t.schema.resolve(t.schema.fieldType(m, 'meta'))?.map?.elementRelationship).toBe('atomic');
    expect(t.schema.resolve(t.schema.fieldType(m, 'amount'))).toEqual({
      name: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
      scalar: 'untyped',
    });
  });

  it('gives embedded resources apiVersion, kind and metadata when ObjectMeta is given', () => {
    const meta = {
      type: 'object',
      properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
    };
    const t = fromOpenAPI(
      {
        type: 'object',
        properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
      },
      { embeddedObjectMeta: meta },
    );
    const root = t.schema.resolve(t.typeRef)?.map;
    const template = root && t.schema.resolve(t.schema.fieldType(root, 'template'))?.map;
    if (!template) throw new Error('no template');
    expect(template.fields?.map((f) => f.name)).toEqual(['apiVersion', 'kind', 'metadata']);
    const metadata = t.schema.resolve(t.schema.fieldType(template, 'metadata'))?.map;
    expect(metadata && t.schema.resolve(t.schema.fieldType(metadata, 'labels'))?.map?.elementType).toEqual({ scalar: 'string' });
  });

  it('throws kube-style errors for unknown list and map types and missing keys', () => {
    expect(() => fromOpenAPI({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' })).toThrow(
      'root: unknown list type bag',
    );
    expect(() => fromOpenAPI({ type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' })).toThrow(
      'root: missing map keys',
    );
    expect(() => fromOpenAPI({ type: 'object', properties: { a: { type: 'object', 'x-kubernetes-map-type': 'fine' } } })).toThrow(
      'inlined in root: unknown map type fine',
    );
  });
});

describe('Schema', () => {
  it('resolves named types, applies element relationship overrides and caches them', () => {
    const s = new Schema({
      types: [
        { name: 'm', map: { elementType: { scalar: 'string' } } },
        { name: 'l', list: { elementType: { scalar: 'string' }, elementRelationship: 'associative' } },
        { name: 's', scalar: 'string' },
      ],
    });
    const ref = { namedType: 'm', elementRelationship: 'atomic' as const };
    expect(s.resolve(ref)?.map?.elementRelationship).toBe('atomic');
    expect(s.resolve(ref)).toBe(s.resolve(ref));
    expect(s.resolve({ namedType: 'l', elementRelationship: 'atomic' })?.list?.elementRelationship).toBe('atomic');
    expect(s.resolve({ namedType: 's', elementRelationship: 'atomic' })).toBeUndefined();
    expect(s.resolve({ namedType: 'missing' })).toBeUndefined();
    expect(s.types.get('m')?.map?.elementRelationship).toBeUndefined();
  });
});

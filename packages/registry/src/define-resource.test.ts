import type { KubeObject, ObjectMeta } from '@kapi/apimachinery';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineResource, ResourceDefinitionError } from './define-resource.ts';
import { zodToOpenAPISchema } from './openapi.ts';
import type { ObjectOf, ResourceDefinition } from './resource-definition.ts';

const spec = z.object({ replicas: z.int().min(0).default(1), color: z.enum(['red', 'blue']).optional() });
const widgetSchema = z.object({ spec, status: z.object({ replicas: z.int().optional() }).optional() });

const base = {
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1', schema: widgetSchema }],
} as const;

function problemsOf(f: () => unknown): readonly string[] {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ResourceDefinitionError);
    return (e as ResourceDefinitionError).problems;
  }
  throw new Error('expected a ResourceDefinitionError');
}

describe('defineResource', () => {
  it('fills defaults and derives names', () => {
    const def = defineResource(base);
    expect(def.singular).toBe('widget');
    expect(def.listKind).toBe('WidgetList');
    expect(def.groupKind).toEqual({ group: 'example.kapi.dev', kind: 'Widget' });
    expect(def.groupResource).toEqual({ group: 'example.kapi.dev', resource: 'widgets' });
    expect(def.storageVersion.name).toBe('v1');
    expect(def.versions[0]).toMatchObject({ name: 'v1', served: true, storage: true, deprecated: false });
    expect(def.subresources).toEqual({ status: false });
    expect(def.shortNames).toEqual([]);
    expect(def.version('v1')).toBe(def.storageVersion);
    expect(def.version('v2')).toBeUndefined();
  });

  it('returns a frozen definition', () => {
    const def = defineResource({
      ...base,
      shortNames: ['wd'],
      printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
    });
    expect(Object.isFrozen(def)).toBe(true);
    expect(Object.isFrozen(def.versions)).toBe(true);
    expect(Object.isFrozen(def.versions[0])).toBe(true);
    expect(Object.isFrozen(def.shortNames)).toBe(true);
    expect(Object.isFrozen(def.printerColumns[0])).toBe(true);
    expect(Object.isFrozen(def.strategy)).toBe(true);
    expect(Object.isFrozen(def.subresources)).toBe(true);
  });

  it('infers the object type from the storage version schema', () => {
    const def = defineResource(base);
    type Widget = ObjectOf<typeof def>;
    expectTypeOf<Widget['spec']>().toEqualTypeOf<{ replicas: number; color?: 'red' | 'blue' | undefined }>();
    expectTypeOf<Widget['metadata']>().toEqualTypeOf<ObjectMeta>();
    expectTypeOf<Widget['apiVersion']>().toEqualTypeOf<string>();
    expectTypeOf<Widget>().toExtend<KubeObject>();
    expectTypeOf(def).toExtend<ResourceDefinition>();
    // Hooks are typed with the object type.
    defineResource({
      ...base,
      strategy: {
        prepareForCreate(_ctx, obj) {
          expectTypeOf(obj.spec.replicas).toEqualTypeOf<number>();
        },
      },
    });
  });

  it('takes the storage version among several, or the top-level schema', () => {
    const v1 = defineResource({
      ...base,
      versions: [
        { name: 'v1alpha1', schema: z.object({ spec: z.object({ size: z.int() }) }), toHub: (o) => o, fromHub: (o) => o },
        { name: 'v1', storage: true, schema: widgetSchema },
      ],
    });
    expectTypeOf<ObjectOf<typeof v1>['spec']['replicas']>().toEqualTypeOf<number>();
    expect(v1.storageVersion.name).toBe('v1');

    const top = defineResource({ ...base, schema: widgetSchema, versions: [{ name: 'v1' }] });
    expectTypeOf<ObjectOf<typeof top>['spec']['replicas']>().toEqualTypeOf<number>();
    expect(top.storageVersion.schema.openAPI()).toEqual(zodToOpenAPISchema(widgetSchema));
  });

  it('rejects bad names with every problem listed', () => {
    const problems = problemsOf(() =>
      defineResource({ ...base, group: 'Example_kapi', kind: 'widget', plural: 'Widgets', singular: 'a.b', categories: ['All'] }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^group "Example_kapi": a lowercase RFC 1123 subdomain/),
      'kind "widget" must be UpperCamelCase, e.g. Widget',
      expect.stringMatching(/^plural "Widgets": a lowercase RFC 1123 label/),
      'singular "a.b": must not contain dots',
      expect.stringMatching(/^category "All": a lowercase RFC 1123 label/),
    ]);
  });

  it('names the resource in the message', () => {
    expect(() => defineResource({ ...base, kind: 'widget' })).toThrow(
      'invalid resource definition "widgets.example.kapi.dev": kind "widget" must be UpperCamelCase, e.g. Widget',
    );
  });

  it('accepts the core group', () => {
    expect(defineResource({ ...base, group: '', kind: 'ConfigMap', plural: 'configmaps' }).groupResource).toEqual({
      group: '',
      resource: 'configmaps',
    });
  });

  it('requires unique short names that differ from plural and singular', () => {
    expect(problemsOf(() => defineResource({ ...base, shortNames: ['wd', 'wd', 'widget', 'W'] }))).toEqual([
      expect.stringMatching(/^short name "W": a lowercase RFC 1123 label/),
      'short name "wd" is declared twice',
      'short name "widget" repeats the plural or singular name',
    ]);
  });

  it('requires exactly one storage version', () => {
    const v = (name: string, storage?: boolean) => ({ name, schema: widgetSchema, ...(storage === undefined ? {} : { storage }) });
    expect(problemsOf(() => defineResource({ ...base, versions: [v('v1'), v('v2')] }))).toEqual([
      'exactly one version must be the storage version, found 0',
    ]);
    expect(problemsOf(() => defineResource({ ...base, versions: [v('v1', true), v('v2', true)] }))).toEqual([
      'exactly one version must be the storage version, found 2 (v1, v2)',
    ]);
    expect(problemsOf(() => defineResource({ ...base, versions: [] }))).toEqual(['at least one version is required']);
    expect(problemsOf(() => defineResource({ ...base, versions: [v('v1', true), v('v1')] }))).toEqual(['version "v1" is declared twice']);
  });

  it('checks version names, schemas and converters', () => {
    const problems = problemsOf(() =>
      defineResource({
        ...base,
        versions: [
          { name: 'V1', storage: true, schema: widgetSchema, toHub: (o) => o, fromHub: (o) => o },
          { name: 'v2' },
          { name: 'v3', schema: z.object({ metadata: z.object({}) }), toHub: (o) => o },
        ],
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^version "V1" must be a DNS-1035 label/),
      'the storage version "V1" is the hub and takes no converters',
      'version "v2" has no schema and the definition has no top-level schema',
      'the schema of version "v3" must not declare "metadata": kapi supplies it',
      'version "v3" needs both toHub and fromHub, or neither',
    ]);
  });

  it('checks the scale subresource paths against the schema', () => {
    expect(
      defineResource({
        ...base,
        subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      }).subresources,
    ).toEqual({ status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } });
    expect(
      problemsOf(() =>
        defineResource({
          ...base,
          subresources: {
            scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas', labelSelectorPath: '.status.selector' },
          },
        }),
      ),
    ).toEqual([
      'scale specReplicasPath "spec.replicas" must be a simple JSONPath such as .spec.replicas',
      'scale statusReplicasPath ".spec.replicas" must be under .status',
      'scale labelSelectorPath ".status.selector" is not a field of the schema',
    ]);
  });

  it('checks scale and selectable field paths against the storage version only', () => {
    const def = defineResource({
      ...base,
      versions: [
        { name: 'v1alpha1', schema: z.object({ spec: z.object({ size: z.int() }) }), toHub: (o) => o, fromHub: (o) => o },
        { name: 'v1', storage: true, schema: widgetSchema },
      ],
      subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      selectableFields: [{ jsonPath: '.spec.color' }],
    });
    expect(def.subresources.scale?.specReplicasPath).toBe('.spec.replicas');
  });

  it('checks printer columns', () => {
    const problems = problemsOf(() =>
      defineResource({
        ...base,
        printerColumns: [
          { name: 'A', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'A', type: 'string', jsonPath: 'spec.color' },
          // Wrong values on purpose, as a JavaScript caller could pass them.
          { name: 'B', type: 'float' as 'number', jsonPath: '.x', format: 'uuid' as 'byte', priority: -1 },
        ],
      }),
    );
    expect(problems).toEqual([
      'printer column "A" is declared twice',
      'printer column "A": jsonPath "spec.color" must start with "."',
      'printer column "B": type "float" is not one of integer, number, string, boolean, date',
      'printer column "B": format "uuid" is not one of int32, int64, float, double, byte, date, date-time, password, name',
      'printer column "B": priority must be a non-negative integer',
    ]);
  });

  it('checks selectable fields', () => {
    expect(
      defineResource({ ...base, selectableFields: [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.replicas' }] }).selectableFields,
    ).toHaveLength(2);
    expect(
      problemsOf(() =>
        defineResource({
          ...base,
          selectableFields: [{ jsonPath: '.spec' }, { jsonPath: '.metadata.uid' }, { jsonPath: 'spec.color' }, { jsonPath: '.spec.nope' }],
        }),
      ),
    ).toEqual([
      'selectable field ".spec" must point to a string, integer or boolean field',
      'selectable field ".metadata.uid": metadata.name and metadata.namespace are always selectable; no other metadata field is',
      'selectable field "spec.color" must be a simple JSONPath such as .spec.color',
      'selectable field ".spec.nope" must point to a string, integer or boolean field',
    ]);
    const nine = Array.from({ length: 9 }, () => ({ jsonPath: '.spec.color' }));
    expect(problemsOf(() => defineResource({ ...base, selectableFields: nine }))).toContain('at most 8 selectable fields are allowed');
  });

  it('rejects unknown strategy hooks and merges the known ones over the defaults', () => {
    const unknownHook = { prepareForCreat: () => {} } as object;
    expect(problemsOf(() => defineResource({ ...base, strategy: unknownHook }))).toEqual([
      expect.stringMatching(/^strategy hook "prepareForCreat" is unknown/),
    ]);
    const def = defineResource({ ...base, strategy: { allowCreateOnUpdate: () => true } });
    expect(def.strategy.allowCreateOnUpdate()).toBe(true);
    expect(def.strategy.allowUnconditionalUpdate()).toBe(false);
  });
});

import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from './define-resource.ts';
import { Scheme } from './scheme.ts';

const v1 = z.object({ spec: z.object({ replicas: z.int(), color: z.string().optional() }) });
const v1alpha1 = z.object({ spec: z.object({ size: z.int(), colour: z.string().optional() }) });

type Spec = Record<string, unknown>;
const specOf = (o: KubeObject) => o.spec as Spec;

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  shortNames: ['wd'],
  namespaced: true,
  versions: [
    {
      name: 'v1alpha1',
      schema: v1alpha1,
      deprecated: true,
      // Old field names ↔ the hub's.
      toHub: (o) => ({ ...o, spec: { replicas: specOf(o).size, color: specOf(o).colour } }),
      fromHub: (o) => ({ ...o, spec: { size: specOf(o).replicas, colour: specOf(o).color } }),
    },
    { name: 'v1beta1', schema: v1 },
    { name: 'v1', storage: true, schema: v1 },
    { name: 'v0', served: false, schema: v1 },
  ],
});
const Gadget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: false,
  versions: [{ name: 'v1', schema: v1 }],
});
const ConfigMap = defineResource({
  group: '',
  kind: 'ConfigMap',
  plural: 'configmaps',
  shortNames: ['cm'],
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ data: z.record(z.string(), z.string()).optional() }) }],
});
const OtherWidget = defineResource({
  group: 'other.dev',
  kind: 'Widget',
  plural: 'widgets',
  shortNames: ['wd'],
  namespaced: true,
  versions: [{ name: 'v2', schema: v1 }],
});

const scheme = new Scheme().add(Widget, Gadget, ConfigMap, OtherWidget);

describe('Scheme lookups', () => {
  it('finds a kind by group, version and kind', () => {
    expect(scheme.byKind({ group: 'example.kapi.dev', version: 'v1alpha1', kind: 'Widget' })).toEqual({
      definition: Widget,
      version: Widget.version('v1alpha1'),
    });
    expect(scheme.byKind({ group: '', version: 'v1', kind: 'ConfigMap' })?.definition).toBe(ConfigMap);
    expect(scheme.byKind({ group: 'example.kapi.dev', version: 'v9', kind: 'Widget' })).toBeUndefined();
    expect(scheme.byKind({ group: 'nope', version: 'v1', kind: 'Widget' })).toBeUndefined();
  });

  it('finds a definition by group and resource', () => {
    expect(scheme.byResource({ group: 'example.kapi.dev', resource: 'widgets' })).toBe(Widget);
    expect(scheme.byResource({ group: 'other.dev', resource: 'widgets' })).toBe(OtherWidget);
    expect(scheme.byResource({ group: '', resource: 'widgets' })).toBeUndefined();
  });

  it('resolves the names kubectl accepts', () => {
    expect(scheme.find('cm')).toEqual([ConfigMap]);
    expect(scheme.find('configmap')).toEqual([ConfigMap]);
    expect(scheme.find('ConfigMap')).toEqual([ConfigMap]);
    expect(scheme.find('wd')).toEqual([Widget, OtherWidget]);
    expect(scheme.find('widgets.other.dev')).toEqual([OtherWidget]);
    expect(scheme.find('wd.example.kapi.dev')).toEqual([Widget]);
    expect(scheme.find('nothing')).toEqual([]);
  });

  it('lists served group-versions and the kinds in each', () => {
    expect(scheme.groupVersions()).toEqual([
      { group: 'example.kapi.dev', version: 'v1alpha1' },
      { group: 'example.kapi.dev', version: 'v1beta1' },
      { group: 'example.kapi.dev', version: 'v1' },
      { group: '', version: 'v1' },
      { group: 'other.dev', version: 'v2' },
    ]);
    expect(scheme.definitionsIn('example.kapi.dev/v1').map((d) => d.definition.kind)).toEqual(['Widget', 'Gadget']);
    expect(scheme.definitionsIn({ group: 'example.kapi.dev', version: 'v1alpha1' }).map((d) => d.definition.kind)).toEqual(['Widget']);
    expect(scheme.definitionsIn('example.kapi.dev/v0')).toEqual([]);
    expect(scheme.definitions()).toEqual([Widget, Gadget, ConfigMap, OtherWidget]);
  });

  it('refuses a second kind or plural in one group', () => {
    const again = defineResource({
      group: 'example.kapi.dev',
      kind: 'Widget',
      plural: 'widgetz',
      namespaced: true,
      versions: [{ name: 'v1', schema: v1 }],
    });
    expect(() => new Scheme().add(Widget, again)).toThrow('kind Widget.example.kapi.dev is already registered');
    const samePlural = defineResource({
      group: 'example.kapi.dev',
      kind: 'Widgit',
      plural: 'widgets',
      namespaced: true,
      versions: [{ name: 'v1', schema: v1 }],
    });
    expect(() => new Scheme().add(Widget, samePlural)).toThrow('resource widgets.example.kapi.dev is already registered');
  });

  it('gives the OpenAPI schema of each version', () => {
    const alpha = scheme.openAPISchema({ group: 'example.kapi.dev', version: 'v1alpha1', kind: 'Widget' });
    expect(Object.keys(alpha.properties?.spec?.properties ?? {})).toEqual(['size', 'colour']);
    expect(alpha['x-kubernetes-group-version-kind']).toEqual([{ group: 'example.kapi.dev', version: 'v1alpha1', kind: 'Widget' }]);
    expect(() => scheme.openAPISchema({ group: 'example.kapi.dev', version: 'v3', kind: 'Widget' })).toThrow(
      'no kind "Widget" is registered for version "example.kapi.dev/v3"',
    );
  });
});

describe('Scheme.convert', () => {
  const alpha: KubeObject = {
    apiVersion: 'example.kapi.dev/v1alpha1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'd', resourceVersion: '7' },
    spec: { size: 3, colour: 'red' },
  };

  it('converts v1alpha1 → v1 through the hub and sets apiVersion', () => {
    expect(scheme.convert(alpha, 'example.kapi.dev/v1')).toEqual({
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'd', resourceVersion: '7' },
      spec: { replicas: 3, color: 'red' },
    });
  });

  it('converts back v1 → v1alpha1 without loss', () => {
    expect(scheme.convert(scheme.convert(alpha, 'example.kapi.dev/v1'), 'example.kapi.dev/v1alpha1')).toEqual(alpha);
  });

  it('changes only apiVersion between versions without converters', () => {
    const beta = scheme.convert(alpha, 'example.kapi.dev/v1beta1');
    expect(beta).toEqual({ ...alpha, apiVersion: 'example.kapi.dev/v1beta1', spec: { replicas: 3, color: 'red' } });
    expect(scheme.convert(beta, 'example.kapi.dev/v1')).toEqual({ ...beta, apiVersion: 'example.kapi.dev/v1' });
  });

  it('returns a copy and never changes its input', () => {
    const frozen = Object.freeze(structuredClone(alpha));
    const same = scheme.convert(frozen, 'example.kapi.dev/v1alpha1');
    expect(same).toEqual(alpha);
    expect(same).not.toBe(frozen);
  });

  it('refuses unknown kinds, versions and other groups with 400', () => {
    expect(() => scheme.convert({ ...alpha, kind: 'Nope' }, 'example.kapi.dev/v1')).toThrow(
      'no kind "Nope" is registered for version "example.kapi.dev/v1alpha1"',
    );
    expect(() => scheme.convert(alpha, 'example.kapi.dev/v9')).toThrow('no kind "Widget" is registered for version "example.kapi.dev/v9"');
    try {
      scheme.convert(alpha, 'other.dev/v2');
      expect.unreachable();
    } catch (e) {
      expect((e as { code: number }).code).toBe(400);
    }
  });
});

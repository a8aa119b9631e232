import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { Widget } from '../../../examples/control-plane/src/widget.ts';
import { ConfigMap } from './builtins/configmap.ts';
import { Event } from './builtins/event.ts';
import { Namespace } from './builtins/namespace.ts';
import { Secret } from './builtins/secret.ts';
import { ServiceAccount } from './builtins/service-account.ts';
import { CRDManifestError, customResourceDefinitionOf, customResourceSchemaOf, manifestsToYAML } from './crd-manifest.ts';
import { defineResource } from './define-resource.ts';
import { intOrString, listMap, preserveUnknownFields } from './kube-extensions.ts';
import { type JSONSchema, toOpenAPISchema } from './openapi.ts';
import type { ResourceDefinition } from './resource-definition.ts';

const JUNCTOR_FORBIDDEN = ['type', 'description', 'default', 'additionalProperties', 'nullable'];

/**
 * The structural-schema rules of apiextensions-apiserver (apiserver/schema/validation.go, validateStructuralInvariants
 * and the CRD schema checks) that a generated schema could break; each problem as `path: rule`.
 */
function structuralProblems(js: JSONSchema, path = '', inJunctor = false, problems: string[] = []): string[] {
  const at = path || '<root>';
  for (const k of ['$ref', 'definitions', '$defs', '$schema', 'id', 'x-kubernetes-group-version-kind', 'x-kubernetes-patch-strategy'])
    if (k in js) problems.push(`${at}: ${k} is not allowed`);
  if (inJunctor) {
    for (const k of JUNCTOR_FORBIDDEN) if (k in js) problems.push(`${at}: ${k} must not be specified inside a junctor`);
    for (const k of Object.keys(js)) if (k.startsWith('x-kubernetes-')) problems.push(`${at}: ${k} must not be specified inside a junctor`);
  } else if (js.type === undefined && !js['x-kubernetes-int-or-string'] && !js['x-kubernetes-preserve-unknown-fields'])
    problems.push(`${at}.type: Required value: must not be empty for specified object fields`);
  if (js.properties && js.additionalProperties !== undefined)
    problems.push(`${at}: additionalProperties and properties are mutual exclusive`);
  if (js.type === 'array' && !js.items && !inJunctor) problems.push(`${at}.items: Required value: must be specified`);
  if (js['x-kubernetes-int-or-string'] && js.type !== undefined) problems.push(`${at}: type must be empty with x-kubernetes-int-or-string`);
  for (const [k, p] of Object.entries(js.properties ?? {})) {
    if (path === '' && k === 'metadata' && JSON.stringify(p) !== '{"type":"object"}')
      problems.push('metadata: must only have "type: object" (kube-apiserver validates ObjectMeta itself)');
    structuralProblems(p, `${path}.properties[${k}]`, inJunctor, problems);
  }
  if (js.items) structuralProblems(js.items, `${path}.items`, inJunctor, problems);
  if (typeof js.additionalProperties === 'object')
    structuralProblems(js.additionalProperties, `${path}.additionalProperties`, inJunctor, problems);
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    // kube's isIntOrStringAnyOfPattern: the one anyOf whose branches carry types.
    if (j === 'anyOf' && js['x-kubernetes-int-or-string'] && JSON.stringify(js.anyOf) === '[{"type":"integer"},{"type":"string"}]')
      continue;
    const branches = (js[j] as JSONSchema[] | undefined) ?? [];
    branches.forEach((b, i) => {
      structuralProblems(b, `${path}.${j}[${i}]`, true, problems);
      // Every property a junctor names is specified outside of it too.
      for (const k of Object.keys(b.properties ?? {}))
        if (!js.properties?.[k])
          problems.push(`${path}.${j}[${i}].properties[${k}]: Required value: must be specified outside the junctor`);
    });
  }
  return problems;
}

describe('customResourceDefinitionOf', () => {
  it("turns the example control plane's Widget into an apiextensions.k8s.io/v1 CustomResourceDefinition", () => {
    const crd = customResourceDefinitionOf(Widget);
    const { openAPIV3Schema, ...version } = { ...crd.spec.versions[0], ...crd.spec.versions[0]?.schema };
    expect({ ...crd, spec: { ...crd.spec, versions: [] } }).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.kapi.dev' },
      spec: {
        group: 'example.kapi.dev',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
        scope: 'Namespaced',
        versions: [],
        conversion: { strategy: 'None' },
      },
    });
    expect(version).toEqual({
      name: 'v1',
      served: true,
      storage: true,
      schema: { openAPIV3Schema },
      subresources: {
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
      },
      additionalPrinterColumns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.replicas' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: expect.any(String) },
        { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
      ],
    });
    expect(openAPIV3Schema?.properties?.metadata).toEqual({ type: 'object' });
    expect(openAPIV3Schema?.properties?.spec?.properties?.replicas).toEqual({
      default: 1,
      description: 'How many copies of the widget should exist.',
      type: 'integer',
      minimum: 0,
    });
    expect(openAPIV3Schema?.properties?.spec?.properties?.selector?.['x-kubernetes-map-type']).toBe('atomic');
    expect(openAPIV3Schema?.required).toEqual(['spec']);
    expect(structuralProblems(openAPIV3Schema as JSONSchema)).toEqual([]);
  });

  it.each([
    ['ConfigMap', ConfigMap],
    ['Secret', Secret],
    ['Event', Event],
    ['Namespace', Namespace],
    ['ServiceAccount', ServiceAccount],
  ] as [string, ResourceDefinition][])(
    'gives the built-in %s a structural schema, and refuses it a CRD: its group is the core group',
    (kind, def) => {
      const schema = customResourceSchemaOf(def, 'v1');
      expect(structuralProblems(schema)).toEqual([]);
      expect(JSON.stringify(schema)).not.toContain('x-kubernetes-patch-');
      expect(() => customResourceDefinitionOf(def)).toThrow(
        new CRDManifestError(`${kind}: a CustomResourceDefinition's group must be a domain name with at least one dot, not ""`),
      );
    },
  );

  it('keeps list-map keys that are required, makes a map list with an optional key atomic, drops strategic-merge hints', () => {
    const conditions = customResourceSchemaOf(Namespace, 'v1').properties?.status?.properties?.conditions;
    expect(conditions).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
    expect(conditions).not.toHaveProperty('x-kubernetes-patch-merge-key');
    // A ServiceAccount's secrets are keyed by name, which an ObjectReference may leave out: a CRD cannot key by it.
    const secrets = customResourceSchemaOf(ServiceAccount, 'v1').properties?.secrets;
    expect(secrets?.['x-kubernetes-list-type']).toBe('atomic');
    expect(secrets).not.toHaveProperty('x-kubernetes-list-map-keys');
    expect(secrets).not.toHaveProperty('x-kubernetes-patch-strategy');
  });

  const spec = z.object({
    port: intOrString(),
    mode: z.union([z.literal('fast'), z.literal('slow')]),
    target: z.union([z.object({ kind: z.literal('pod'), pod: z.string() }), z.object({ kind: z.literal('node'), node: z.int() })]),
    choice: z.discriminatedUnion('t', [z.object({ t: z.literal('a'), a: z.string() }), z.object({ t: z.literal('b') })]),
    either: z.union([z.string(), z.int()]),
    extra: preserveUnknownFields(z.object({ known: z.string().optional() })),
    anything: z.unknown(),
    items: listMap(z.array(z.object({ name: z.string(), value: z.string().optional() })), ['name']),
    maybe: z.string().nullable(),
  });
  const Gadget = defineResource({
    group: 'example.kapi.dev',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: false,
    versions: [{ name: 'v1', schema: z.object({ spec }) }],
    selectableFields: [{ jsonPath: '.spec.maybe' }],
  });

  it('makes zod unions structural: one typed node with the shared structure, the branches keeping their value checks', () => {
    const crd = customResourceDefinitionOf(Gadget);
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.versions[0]?.selectableFields).toEqual([{ jsonPath: '.spec.maybe' }]);
    expect(crd.spec.versions[0]).not.toHaveProperty('subresources');
    const root = crd.spec.versions[0]?.schema.openAPIV3Schema as JSONSchema;
    expect(structuralProblems(root)).toEqual([]);
    // kapi's own OpenAPI of the same kind is not structural: the unions carry types inside anyOf / oneOf.
    expect(structuralProblems(toOpenAPISchema(Gadget, 'v1'))).toContain(
      '.properties[spec].properties[mode].anyOf[0]: type must not be specified inside a junctor',
    );
    const p = root.properties?.spec?.properties as Record<string, JSONSchema>;
    expect(p.port).toEqual({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    expect(p.mode).toEqual({ type: 'string', anyOf: [{ enum: ['fast'] }, { enum: ['slow'] }] });
    expect(p.target).toEqual({
      type: 'object',
      properties: { kind: { type: 'string' }, pod: { type: 'string' }, node: { type: 'integer' } },
      anyOf: [
        { properties: { kind: { enum: ['pod'] } }, required: ['kind', 'pod'] },
        { properties: { kind: { enum: ['node'] } }, required: ['kind', 'node'] },
      ],
    });
    expect(p.choice).toEqual({
      type: 'object',
      properties: { t: { type: 'string' }, a: { type: 'string' } },
      oneOf: [
        { properties: { t: { enum: ['a'] } }, required: ['t', 'a'] },
        { properties: { t: { enum: ['b'] } }, required: ['t'] },
      ],
    });
    // Branches of different types: no structural schema says "a string or an integer" but int-or-string.
    expect(p.either).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(p.extra).toEqual({ type: 'object', properties: { known: { type: 'string' } }, 'x-kubernetes-preserve-unknown-fields': true });
    expect(p.anything).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(p.items).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    expect(p.maybe).toEqual({ type: 'string', nullable: true });
  });

  it('turns a recursive schema ($ref in kapi OpenAPI) into a node that keeps anything', () => {
    const Node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Node).optional();
      },
    });
    const Tree = defineResource({
      group: 'example.kapi.dev',
      kind: 'Tree',
      plural: 'trees',
      namespaced: true,
      versions: [{ name: 'v1', schema: z.object({ spec: z.object({ root: Node.optional() }) }) }],
    });
    const schema = customResourceSchemaOf(Tree, 'v1');
    expect(structuralProblems(schema)).toEqual([]);
    expect(schema.properties?.spec?.properties?.root).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
  });

  it('keeps only the fields JSONSchemaProps has (kube’s strict decoding refuses others) and has no null type', () => {
    const Note = defineResource({
      group: 'example.kapi.dev',
      kind: 'Note',
      plural: 'notes',
      namespaced: true,
      versions: [
        {
          name: 'v1',
          schema: z.object({
            spec: z.object({
              text: z.string().meta({ examples: ['hello', 'hi'], deprecated: true, owner: 'team-a' }),
              sealed: z.string().readonly().optional(),
              nothing: z.literal(null).optional(),
            }),
          }),
        },
      ],
    });
    const schema = customResourceSchemaOf(Note, 'v1');
    expect(structuralProblems(schema)).toEqual([]);
    const p = schema.properties?.spec?.properties ?? {};
    // JSON Schema's examples become JSONSchemaProps' one example.
    expect(p.text).toEqual({ type: 'string', example: 'hello' });
    expect(p.sealed).toEqual({ type: 'string' });
    // kube refuses `type: null` ("use nullable as an alternative"): a field that can only be null keeps anything, null too.
    expect(p.nothing).toEqual({ 'x-kubernetes-preserve-unknown-fields': true, nullable: true });
  });

  const v1 = z.object({ spec: z.object({ colour: z.string() }) });
  const v2 = z.object({ spec: z.object({ color: z.string() }) });
  const converting = {
    group: 'example.kapi.dev',
    kind: 'Paint',
    plural: 'paints',
    namespaced: true,
    versions: [
      {
        name: 'v1',
        schema: v1,
        deprecated: true,
        deprecationWarning: 'example.kapi.dev/v1 Paint is deprecated; use v2',
        toHub: (o: object) => o as never,
        fromHub: (o: object) => o as never,
      },
      { name: 'v2', schema: v2, storage: true },
    ],
  } as const;

  it('refuses TypeScript converters it cannot put in a manifest, unless told to use a webhook or None', () => {
    const Paint = defineResource(converting);
    expect(() => customResourceDefinitionOf(Paint)).toThrow(
      new CRDManifestError(
        "paints.example.kapi.dev: version v1 converts with TypeScript converters (toHub/fromHub), which a CustomResourceDefinition cannot hold; pass conversion: { webhook } for a conversion webhook that serves them (answerConversionReview), or conversion: 'None' if the versions share one shape",
      ),
    );
    expect(customResourceDefinitionOf(Paint, { conversion: 'None' }).spec.conversion).toEqual({ strategy: 'None' });
    const crd = customResourceDefinitionOf(Paint, {
      conversion: { webhook: { service: { namespace: 'paint', name: 'converter', path: '/convert', port: 8443 }, caBundle: 'LS0t' } },
    });
    expect(crd.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { namespace: 'paint', name: 'converter', path: '/convert', port: 8443 }, caBundle: 'LS0t' },
        conversionReviewVersions: ['v1'],
      },
    });
    expect(
      crd.spec.versions.map(({ name, served, storage, deprecated, deprecationWarning }) => ({
        name,
        served,
        storage,
        deprecated,
        deprecationWarning,
      })),
    ).toEqual([
      { name: 'v1', served: true, storage: false, deprecated: true, deprecationWarning: 'example.kapi.dev/v1 Paint is deprecated; use v2' },
      { name: 'v2', served: true, storage: true, deprecated: undefined, deprecationWarning: undefined },
    ]);
    expect(crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties).toHaveProperty('colour');
    expect(crd.spec.versions[1]?.schema.openAPIV3Schema.properties?.spec?.properties).toHaveProperty('color');
  });

  it('renders YAML that reads back as the same manifests, one document each', () => {
    const widget = customResourceDefinitionOf(Widget);
    const gadget = customResourceDefinitionOf(Gadget);
    const text = manifestsToYAML([widget, gadget]);
    expect(
      text.startsWith('apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.kapi.dev\n'),
    ).toBe(true);
    const docs = text.split(/^---$/m).map((d) => parse(d));
    expect(docs).toEqual([widget, gadget]);
  });
});

import { fieldErrorMessage } from '@kapi/apimachinery';
import {
  ConfigMap,
  customResourceDefinitionOf,
  customResourceSchemaOf,
  defineResource,
  Event,
  intOrString,
  listMap,
  Namespace,
  preserveUnknownFields,
  type ResourceDefinition,
  Secret,
  ServiceAccount,
  toOpenAPISchema,
} from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Widget } from '../../../examples/control-plane/src/widget.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { newStructural } from './schema/new-structural.ts';
import { validateSchemaRules } from './schema/validate-schema-rules.ts';
import { validateStructural } from './schema/validate-structural.ts';

/** What kube-apiserver says of a CRD version's schema: the structural-schema invariants and the schema rules. */
function problems(schema: unknown): string[] {
  const P = 'spec.versions[0].schema.openAPIV3Schema';
  const props = schema as JSONSchemaProps;
  try {
    return [...validateStructural(P, newStructural(props)), ...validateSchemaRules(props, P)].map(fieldErrorMessage);
  } catch (err) {
    // kube's NewStructural refuses some fields outright ($ref, patternProperties, …).
    return [(err as Error).message];
  }
}

describe("registry's CRD manifests meet apiextensions' structural-schema rules", () => {
  it("the example control plane's Widget", () => {
    const crd = customResourceDefinitionOf(Widget);
    expect(problems(crd.spec.versions[0]?.schema.openAPIV3Schema)).toEqual([]);
  });

  it.each([
    ['ConfigMap', ConfigMap],
    ['Secret', Secret],
    ['Event', Event],
    ['Namespace', Namespace],
    ['ServiceAccount', ServiceAccount],
  ] as [string, ResourceDefinition][])("the built-in %s's schema", (_kind, def) => {
    expect(problems(customResourceSchemaOf(def, 'v1'))).toEqual([]);
  });

  it('a kind with unions, int-or-string, open objects, list maps, nullable and recursive fields', () => {
    const Node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Node).optional();
      },
    });
    const Gadget = defineResource({
      group: 'example.kapi.dev',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
      versions: [
        {
          name: 'v1',
          schema: z.object({
            spec: z.object({
              port: intOrString(),
              mode: z.union([z.literal('fast'), z.literal('slow')]),
              target: z.union([
                z.object({ kind: z.literal('pod'), pod: z.string() }),
                z.object({ kind: z.literal('node'), node: z.int() }),
              ]),
              choice: z.discriminatedUnion('t', [z.object({ t: z.literal('a'), a: z.string() }), z.object({ t: z.literal('b') })]),
              either: z.union([z.string(), z.int()]),
              extra: preserveUnknownFields(z.object({ known: z.string().optional() })),
              anything: z.unknown(),
              items: listMap(z.array(z.object({ name: z.string(), value: z.string().optional() })), ['name']),
              maybe: z.string().nullable(),
              tree: Node.optional(),
            }),
          }),
        },
      ],
    });
    expect(problems(customResourceDefinitionOf(Gadget).spec.versions[0]?.schema.openAPIV3Schema)).toEqual([]);
    // The same kind's OpenAPI as kapi publishes it is not structural: the checks above can fail.
    expect(problems(toOpenAPISchema(Gadget, 'v1'))).not.toEqual([]);
  });
});

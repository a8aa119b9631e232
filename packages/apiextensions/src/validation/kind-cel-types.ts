import type { CelType } from '@kapi/cel';
import { type ResourceDefinition, toOpenAPISchema } from '@kapi/registry';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { newStructural } from '../schema/new-structural.ts';
import { schemaCelType } from './cel-decl-type.ts';

interface GVK {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * The kinds a server serves and the CEL type of each, from their OpenAPI schemas (kube's RESTMapper and schema
 * resolver, as ValidatingAdmissionPolicy type checking asks them: @kapi/admission's KindSchemas). A kind whose schema
 * has no structural form has no type (its expressions are not checked). Types are computed once per kind version.
 */
export function kindCelTypes(definitions: () => readonly ResourceDefinition[]): {
  kindsFor(gvr: { readonly group: string; readonly version: string; readonly resource: string }): readonly GVK[];
  typeOf(gvk: GVK): CelType | undefined;
} {
  const types = new WeakMap<ResourceDefinition, Map<string, CelType | undefined>>();
  const served = (def: ResourceDefinition, version: string) => def.versions.some((v) => v.name === version && v.served);
  return {
    kindsFor: ({ group, version, resource }) =>
      definitions()
        .filter((d) => d.group === group && d.plural === resource && served(d, version))
        .map((d) => ({ group, version, kind: d.kind })),
    typeOf: ({ group, version, kind }) => {
      const def = definitions().find((d) => d.group === group && d.kind === kind && served(d, version));
      if (!def) return undefined;
      let byVersion = types.get(def);
      if (!byVersion) {
        byVersion = new Map();
        types.set(def, byVersion);
      }
      if (!byVersion.has(version)) {
        let type: CelType | undefined;
        try {
          const structural = newStructural(toOpenAPISchema(def, version) as JSONSchemaProps);
          type = schemaCelType(structural, true, kind);
        } catch {
          type = undefined;
        }
        byVersion.set(version, type);
      }
      return byVersion.get(version);
    },
  };
}

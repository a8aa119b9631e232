import { type JSONSchema, type ResourceDefinition, toOpenAPISchema } from '@kapi/registry';
import {
  API_VERSION_PROPERTY,
  describedRef,
  KIND_PROPERTY,
  LIST_METADATA_DESCRIPTION,
  META_DEFINITIONS,
  OBJECT_METADATA_DESCRIPTION,
} from './meta-definitions.ts';
import { definitionName, LIST_META, OBJECT_META, ref, V3_REF_PREFIX } from './names.ts';

/**
 * The component schemas of one kind in one version, as apiextensions' builder publishes a CRD's (buildKubeNative,
 * buildListSchema): the version's structural schema with TypeMeta's apiVersion and kind, metadata as a reference to
 * ObjectMeta, x-kubernetes-group-version-kind; and the list kind with items referring to the kind.
 */
export function kindSchemas(def: ResourceDefinition, version: string): Record<string, JSONSchema> {
  const kind = toOpenAPISchema(def, version);
  kind.properties = {
    ...kind.properties,
    apiVersion: API_VERSION_PROPERTY,
    kind: KIND_PROPERTY,
    metadata: describedRef(OBJECT_META, OBJECT_METADATA_DESCRIPTION),
  };
  const kindName = definitionName(def.group, version, def.kind);
  const list: JSONSchema = {
    description: `${def.listKind} is a list of ${def.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: API_VERSION_PROPERTY,
      items: {
        description: `List of ${def.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: 'array',
        items: ref(kindName),
      },
      kind: KIND_PROPERTY,
      metadata: describedRef(LIST_META, LIST_METADATA_DESCRIPTION),
    },
    'x-kubernetes-group-version-kind': [{ group: def.group, version, kind: def.listKind }],
  };
  return { [kindName]: kind, [definitionName(def.group, version, def.listKind)]: list };
}

/** Every `$ref` target (by definition name) reachable from `value`, following the shared definitions. */
export function referencedDefinitions(value: unknown, known: Readonly<Record<string, JSONSchema>> = META_DEFINITIONS): Set<string> {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith(V3_REF_PREFIX)) {
        const name = x.slice(V3_REF_PREFIX.length);
        if (!found.has(name)) {
          found.add(name);
          walk(known[name]);
        }
      } else walk(x);
    }
  };
  walk(value);
  return found;
}

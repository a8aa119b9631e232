import { stringify } from 'yaml';
import { type JSONSchema, toOpenAPISchema } from './openapi.ts';
import type { PrinterColumn, ResourceDefinition } from './resource-definition.ts';

/**
 * A resource definition as an apiextensions.k8s.io/v1 CustomResourceDefinition manifest, so a kind written with
 * `defineResource` can be installed into a real cluster (`kubectl apply -f crd.yaml`). Plain object types: registry
 * sits below apiextensions and never imports it; the field names are the CRD's own.
 */

export interface CRDNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CRDPrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchema };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: CRDPrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

/** apiextensions.k8s.io/v1 WebhookClientConfig: a URL or a Service, and the CA bundle (base64 PEM) to verify it. */
export interface CRDWebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  caBundle?: string;
}

export type CRDConversion =
  | { strategy: 'None' }
  | { strategy: 'Webhook'; webhook: { clientConfig: CRDWebhookClientConfig; conversionReviewVersions: string[] } };

export interface CustomResourceDefinitionManifest {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: CRDNames;
    scope: 'Namespaced' | 'Cluster';
    versions: CRDVersion[];
    conversion: CRDConversion;
  };
}

export interface CRDManifestOptions {
  /**
   * How the cluster converts between versions. TypeScript converters (`toHub`/`fromHub`) cannot travel in a manifest:
   * a kind that has them needs either a conversion webhook serving the same conversion (`{ webhook }`), or an explicit
   * `'None'` (the cluster then only rewrites apiVersion, right only where the versions share one shape). Without this
   * option such a kind is refused with an error that says so; a kind without converters gets `None`.
   */
  conversion?: 'None' | { webhook: CRDWebhookClientConfig; conversionReviewVersions?: string[] };
}

/** The error for what a CustomResourceDefinition cannot express. */
export class CRDManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CRDManifestError';
  }
}

/**
 * The fields of apiextensions.k8s.io/v1 JSONSchemaProps a CRD's structural schema may hold: kapi's OpenAPI carries
 * others (strategic-merge hints, zod's `examples`, `readOnly`, `deprecated`, users' own `.meta()` keys), which
 * kube's strict decoding — what `kubectl apply` asks for — refuses as unknown fields. (`id`, `$schema`, `$ref`,
 * `definitions`, `patternProperties`, `dependencies` and `additionalItems` are JSONSchemaProps fields too, but no
 * structural schema may use them.)
 */
const CRD_SCHEMA_FIELDS = new Set([
  'description',
  'type',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'externalDocs',
  'example',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
/** Value validations: what a structural schema allows inside allOf / anyOf / oneOf / not. */
const VALUE_VALIDATIONS = [
  'enum',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'multipleOf',
  'minProperties',
  'maxProperties',
  'required',
];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

/** A node that keeps anything: where kapi's schema says more than a structural schema can. */
function anything(js: JSONSchema): JSONSchema {
  return { ...(js.description ? { description: js.description } : {}), 'x-kubernetes-preserve-unknown-fields': true };
}

/** The structure of `a` and `b` together (types, properties, items), or undefined where their types differ. */
function mergeStructure(a: JSONSchema, b: JSONSchema): JSONSchema | undefined {
  if (a.type !== b.type || a.type === undefined) return undefined;
  const out: JSONSchema = { ...structureOf(a) };
  if (b.nullable) out.nullable = true;
  if (a.properties || b.properties) {
    const props: Record<string, JSONSchema> = { ...out.properties };
    for (const [k, v] of Object.entries(b.properties ?? {})) {
      const here = props[k];
      const merged = here ? mergeStructure(here, v) : structureOf(v);
      props[k] = merged ?? anything(v);
    }
    out.properties = props;
  }
  if (a.items && b.items) out.items = mergeStructure(structureOf(a.items), structureOf(b.items)) ?? anything(a.items);
  return out;
}

/** A node without its value validations (they stay in the junctor's branch). */
function structureOf(js: JSONSchema): JSONSchema {
  const out: JSONSchema = {};
  for (const [k, v] of Object.entries(js)) if (!VALUE_VALIDATIONS.includes(k) && !(JUNCTORS as readonly string[]).includes(k)) out[k] = v;
  if (js.properties) out.properties = Object.fromEntries(Object.entries(js.properties).map(([k, v]) => [k, structureOf(v)]));
  if (js.items) out.items = structureOf(js.items);
  return out;
}

/** A branch of a junctor as a structural schema allows it: value validations only, at every depth. */
function validationsOf(js: JSONSchema): JSONSchema {
  const out: JSONSchema = {};
  for (const k of VALUE_VALIDATIONS) if (js[k] !== undefined) out[k] = js[k];
  const props = Object.entries(js.properties ?? {})
    .map(([k, v]) => [k, validationsOf(v)] as const)
    .filter(([, v]) => Object.keys(v).length > 0);
  if (props.length) out.properties = Object.fromEntries(props);
  if (js.items) {
    const items = validationsOf(js.items);
    if (Object.keys(items).length) out.items = items;
  }
  return out;
}

/**
 * kapi's OpenAPI node as a CRD's structural schema: zod unions (anyOf / oneOf) become one typed node holding the
 * branches' shared structure with the branches kept for their value validations; what no structural schema can say
 * (branches of different types, recursive schemas behind $ref) becomes x-kubernetes-preserve-unknown-fields — looser
 * than kapi's own validation, never stricter.
 */
function crdSchema(js: JSONSchema): JSONSchema {
  if (js.$ref !== undefined || js.definitions !== undefined || js.$defs !== undefined) return anything(js);
  // JSON Schema's `examples` is JSONSchemaProps' `example` (one value).
  if (Array.isArray(js.examples) && js.examples.length > 0 && js.example === undefined) js.example = js.examples[0];
  for (const k of Object.keys(js)) if (!CRD_SCHEMA_FIELDS.has(k)) delete js[k];
  // z.null(): a CRD has no null type (kube refuses `type: null` and says to use nullable).
  if ((js.type as string) === 'null') return { ...anything(js), nullable: true };
  if (js['x-kubernetes-int-or-string']) {
    const { description, default: def, nullable } = js;
    return {
      ...(description ? { description } : {}),
      ...(def !== undefined ? { default: def } : {}),
      ...(nullable ? { nullable } : {}),
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    };
  }
  if (js.properties) for (const [k, v] of Object.entries(js.properties)) js.properties[k] = crdSchema(v);
  if (js.items) js.items = crdSchema(js.items);
  // A CRD's map list needs every key required or defaulted (an item without its key could not be merged by it); kapi
  // lets a key be optional, so such a list travels as atomic: no per-key merge, no uniqueness check, nothing refused.
  const keys = js['x-kubernetes-list-map-keys'] as string[] | undefined;
  const item = js.items;
  if (js['x-kubernetes-list-type'] === 'map' && keys && item?.properties)
    if (keys.some((k) => !item.required?.includes(k) && item.properties?.[k]?.default === undefined)) {
      js['x-kubernetes-list-type'] = 'atomic';
      delete js['x-kubernetes-list-map-keys'];
    }
  if (typeof js.additionalProperties === 'object') js.additionalProperties = crdSchema(js.additionalProperties);
  for (const junctor of JUNCTORS) {
    const branches = js[junctor] as JSONSchema[] | undefined;
    if (!branches) continue;
    delete js[junctor];
    const done = branches.map(crdSchema);
    let structure: JSONSchema | undefined = structureOf(js.type ? js : (done[0] ?? {}));
    for (const b of done) structure = structure && mergeStructure(structure, structureOf(b));
    if (!structure) return anything(js);
    Object.assign(js, structure, js.description ? { description: js.description } : {});
    const kept = done.map(validationsOf);
    // An empty branch matches anything: the junctor then checks nothing (anyOf) or cannot be kept looser (oneOf).
    if (junctor === 'allOf') {
      const nonEmpty = kept.filter((b) => Object.keys(b).length > 0);
      if (nonEmpty.length) js.allOf = nonEmpty;
    } else if (kept.every((b) => Object.keys(b).length > 0)) js[junctor] = kept;
  }
  if (js.type === undefined && !js['x-kubernetes-int-or-string']) return anything(js);
  return js;
}

/** The openAPIV3Schema of one version of `def` as a CustomResourceDefinition holds it. */
export function customResourceSchemaOf(def: ResourceDefinition, version: string): JSONSchema {
  const schema = toOpenAPISchema(def, version);
  const properties = schema.properties as Record<string, JSONSchema>;
  // A CRD's schema may say of metadata only that it is an object: kube-apiserver validates ObjectMeta itself.
  const { metadata: _, ...rest } = properties;
  schema.properties = { metadata: { type: 'object' }, ...rest };
  return crdSchema(schema);
}

function conversionOf(def: ResourceDefinition, options: CRDManifestOptions): CRDConversion {
  const option = options.conversion;
  if (option === 'None') return { strategy: 'None' };
  if (option)
    return {
      strategy: 'Webhook',
      webhook: { clientConfig: { ...option.webhook }, conversionReviewVersions: [...(option.conversionReviewVersions ?? ['v1'])] },
    };
  const converting = def.versions.filter((v) => v.toHub).map((v) => v.name);
  if (converting.length)
    throw new CRDManifestError(
      `${def.plural}.${def.group}: version${converting.length > 1 ? 's' : ''} ${converting.join(', ')} convert${converting.length > 1 ? '' : 's'} with TypeScript converters (toHub/fromHub), which a CustomResourceDefinition cannot hold; pass conversion: { webhook } for a conversion webhook that serves them (answerConversionReview), or conversion: 'None' if the versions share one shape`,
    );
  return { strategy: 'None' };
}

/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition of a kind: names, scope, every version with its structural
 * schema, status and scale subresources, printer columns and selectable fields, and the conversion strategy (see
 * {@link CRDManifestOptions.conversion}). Throws CRDManifestError for what a CRD cannot express: a kind of the core
 * group "" (a CRD's group is a domain with a dot), or TypeScript converters without a `conversion` option.
 */
export function customResourceDefinitionOf(def: ResourceDefinition, options: CRDManifestOptions = {}): CustomResourceDefinitionManifest {
  if (!def.group.includes('.'))
    throw new CRDManifestError(
      `${def.kind}: a CustomResourceDefinition's group must be a domain name with at least one dot, not ${JSON.stringify(def.group)}`,
    );
  const conversion = conversionOf(def, options);
  const sub = def.subresources;
  const subresources: CRDVersion['subresources'] = {
    ...(sub.status ? { status: {} } : {}),
    ...(sub.scale ? { scale: { ...sub.scale } } : {}),
  };
  const columnsOf = (columns: readonly PrinterColumn[]): CRDPrinterColumn[] =>
    columns.map(
      (c): CRDPrinterColumn => ({
        name: c.name,
        type: c.type,
        jsonPath: c.jsonPath,
        ...(c.description !== undefined ? { description: c.description } : {}),
        ...(c.priority !== undefined ? { priority: c.priority } : {}),
        ...(c.format !== undefined ? { format: c.format } : {}),
      }),
    );
  // A version's own columns and selectable fields, else the definition's, as each CRD version lists its own.
  const versions = def.versions.map((v): CRDVersion => {
    const columns = columnsOf(v.printerColumns ?? def.printerColumns);
    const fields = v.selectableFields ?? def.selectableFields;
    return {
      name: v.name,
      served: v.served,
      storage: v.storage,
      ...(v.deprecated ? { deprecated: true } : {}),
      ...(v.deprecated && v.deprecationWarning !== undefined ? { deprecationWarning: v.deprecationWarning } : {}),
      schema: { openAPIV3Schema: customResourceSchemaOf(def, v.name) },
      ...(Object.keys(subresources).length ? { subresources } : {}),
      ...(columns.length ? { additionalPrinterColumns: columns } : {}),
      ...(fields.length ? { selectableFields: fields.map((f) => ({ jsonPath: f.jsonPath })) } : {}),
    };
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${def.group}` },
    spec: {
      group: def.group,
      names: {
        plural: def.plural,
        singular: def.singular,
        kind: def.kind,
        listKind: def.listKind,
        ...(def.shortNames.length ? { shortNames: [...def.shortNames] } : {}),
        ...(def.categories.length ? { categories: [...def.categories] } : {}),
      },
      scope: def.namespaced ? 'Namespaced' : 'Cluster',
      versions,
      conversion,
    },
  };
}

/**
 * Manifests as one YAML stream (documents separated by `---`), for a CLI that writes what `kubectl apply -f` reads:
 * `console.log(manifestsToYAML([customResourceDefinitionOf(Widget)]))`.
 */
export function manifestsToYAML(manifests: readonly object[]): string {
  return manifests.map((m) => stringify(m, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
}

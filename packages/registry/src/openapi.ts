import { formatGroupVersion } from '@kapi/apimachinery';
import { z } from 'zod';
import { type KubeFieldMeta, kubeMetaOf } from './kube-extensions.ts';
import { OBJECT_META_OPENAPI } from './metav1.ts';
import type { ResourceDefinition, ResourceVersion } from './resource-definition.ts';
import { defOf } from './schema-walk.ts';

/** An OpenAPI v3 schema object as kapi publishes it (a structural schema, in Kubernetes' sense). */
export interface JSONSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchema>;
  additionalProperties?: JSONSchema | boolean;
  items?: JSONSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  anyOf?: JSONSchema[];
  [keyword: string]: unknown;
}

// The bounds zod writes for z.int() / z.int32(): the type already says them, Kubernetes schemas never do.
const IMPLIED_BOUNDS: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};
const OPENAPI_FORMATS: Record<string, string> = { int32: 'int32', uint32: 'int64', float32: 'float', float64: 'double', safeint: 'int64' };

function addExtensions(js: JSONSchema, meta: KubeFieldMeta): void {
  if (meta.listType) js['x-kubernetes-list-type'] = meta.listType;
  if (meta.listMapKeys) js['x-kubernetes-list-map-keys'] = [...meta.listMapKeys];
  if (meta.mapType) js['x-kubernetes-map-type'] = meta.mapType;
  if (meta.patchStrategy) js['x-kubernetes-patch-strategy'] = meta.patchStrategy;
  if (meta.patchMergeKey) js['x-kubernetes-patch-merge-key'] = meta.patchMergeKey;
  if (meta.preserveUnknownFields) js['x-kubernetes-preserve-unknown-fields'] = true;
  if (meta.intOrString) js['x-kubernetes-int-or-string'] = true;
}

/** zod-aware fixes, made while zod still says which schema a node came from. */
function override(ctx: { zodSchema: z.core.$ZodType; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const js = ctx.jsonSchema as JSONSchema;
  const d = defOf(ctx.zodSchema);
  const meta = kubeMetaOf(ctx.zodSchema);
  if (meta) addExtensions(js, meta);
  if (d.type === 'number' && d.format) {
    const bounds = IMPLIED_BOUNDS[d.format];
    if (bounds && js.minimum === bounds[0]) delete js.minimum;
    if (bounds && js.maximum === bounds[1]) delete js.maximum;
    const format = OPENAPI_FORMATS[d.format];
    if (format && format !== 'int64') js.format = format;
  }
}

/** Structural-schema rules that hold whatever zod type produced a node. */
function structural(js: JSONSchema): JSONSchema {
  delete js.$schema;
  delete js.propertyNames;
  if (js.properties || js.additionalProperties !== undefined) js.type ??= 'object';
  const ap = js.additionalProperties;
  // additionalProperties: false is what an object without extras means anyway; {} / true means "keep anything".
  if (ap === false || (ap !== undefined && js.properties)) {
    if (ap !== false) js['x-kubernetes-preserve-unknown-fields'] = true;
    delete js.additionalProperties;
  } else if (ap === true || (typeof ap === 'object' && Object.keys(ap).length === 0)) {
    js['x-kubernetes-preserve-unknown-fields'] = true;
    delete js.additionalProperties;
  }
  // A node with no type (z.unknown(), z.any()) is arbitrary JSON.
  if (js.type === undefined && !js.anyOf && !js.allOf && !js.oneOf && !js['x-kubernetes-int-or-string'])
    js['x-kubernetes-preserve-unknown-fields'] = true;
  for (const p of Object.values(js.properties ?? {})) structural(p);
  if (typeof js.additionalProperties === 'object') structural(js.additionalProperties);
  if (js.items) structural(js.items);
  for (const k of ['anyOf', 'allOf', 'oneOf'] as const) {
    const list = js[k];
    if (Array.isArray(list)) for (const s of list as JSONSchema[]) structural(s);
  }
  return js;
}

/** A zod schema as an OpenAPI v3 structural schema with x-kubernetes-* extensions (zodVersionSchema's openAPI). */
export function zodToOpenAPISchema(schema: z.core.$ZodType): JSONSchema {
  return structural(z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any', override }) as JSONSchema);
}

const cache = new WeakMap<ResourceVersion, JSONSchema>();

/**
 * The OpenAPI v3 schema of one version of a kind, as kube-apiserver publishes a custom resource's: apiVersion,
 * kind, ObjectMeta inline, the zod schema's fields as a structural schema with x-kubernetes-* extensions, and
 * x-kubernetes-group-version-kind. Computed once per version; callers get a copy.
 */
export function toOpenAPISchema(def: ResourceDefinition, version: string): JSONSchema {
  const v = def.version(version);
  if (!v) throw new Error(`${def.kind}.${def.group} has no version ${JSON.stringify(version)}`);
  let out = cache.get(v);
  if (!out) {
    const body = v.schema.openAPI();
    const apiVersion = formatGroupVersion({ group: def.group, version: v.name });
    out = {
      ...(body.description ? { description: body.description } : {}),
      type: 'object',
      properties: {
        apiVersion: {
          type: 'string',
          description: `APIVersion defines the versioned schema of this representation of an object: ${apiVersion}.`,
        },
        kind: { type: 'string', description: `Kind is a string value representing the REST resource this object represents: ${def.kind}.` },
        metadata: structuredClone(OBJECT_META_OPENAPI),
        ...body.properties,
      },
      ...(body.required?.length ? { required: body.required } : {}),
      ...(body['x-kubernetes-preserve-unknown-fields'] ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
      'x-kubernetes-group-version-kind': [{ group: def.group, version: v.name, kind: def.kind }],
    };
    cache.set(v, out);
  }
  return structuredClone(out);
}

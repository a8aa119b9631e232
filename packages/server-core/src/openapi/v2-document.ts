import type { JSONSchema, ResourceDefinition } from '@kapi/registry';
import type { SubresourceInfo, VirtualResourceInfo } from '../discovery/documents.ts';
import { kindSchemas, referencedDefinitions } from './kind-schemas.ts';
import { META_DEFINITIONS } from './meta-definitions.ts';
import { V2_REF_PREFIX, V3_REF_PREFIX } from './names.ts';
import type { ParameterSpec } from './parameters.ts';
import { type RouteOperation, type RoutePath, routesOf, virtualRoutes } from './routes.ts';
import { BEARER_TOKEN_SCHEME, DEFAULT_OPENAPI_INFO, type OpenAPIInfo } from './v3-document.ts';

/** Swagger 2.0 as kube-openapi's spec package marshals it (the subset kapi writes). */
export interface SwaggerDocument {
  swagger: '2.0';
  info: OpenAPIInfo;
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, Record<string, unknown>>;
  securityDefinitions: Record<string, unknown>;
  security: Record<string, string[]>[];
}

const DROPPED_IN_V2 = new Set(['nullable', 'anyOf', 'oneOf', 'not']);

/**
 * An OpenAPI v3 schema as Swagger 2.0 has it (apiextensions' ToStructuralOpenAPIV2 and kube-openapi's v2 refs):
 * references under #/definitions/, `allOf: [$ref]` back to a `$ref` with siblings, no nullable/anyOf/oneOf/not.
 * A kind whose root keeps unknown fields is only `type: object` (kubectl would otherwise reject unknown fields).
 */
export function toV2Schema(schema: JSONSchema, root = false): Record<string, unknown> {
  if (root && schema['x-kubernetes-preserve-unknown-fields'] === true) {
    const gvk = schema['x-kubernetes-group-version-kind'];
    return { type: 'object', ...(gvk ? { 'x-kubernetes-group-version-kind': structuredClone(gvk) } : {}) };
  }
  return convert(schema) as Record<string, unknown>;
}

function convert(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(convert);
  if (v === null || typeof v !== 'object') return v;
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const allOf = src.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && typeof (allOf[0] as { $ref?: unknown }).$ref === 'string') {
    out.$ref = v2Ref((allOf[0] as { $ref: string }).$ref);
  }
  for (const [k, x] of Object.entries(src)) {
    if (DROPPED_IN_V2.has(k) || (k === 'allOf' && out.$ref !== undefined)) continue;
    if (k === '$ref' && typeof x === 'string') out.$ref = v2Ref(x);
    else if (k === 'properties' && x && typeof x === 'object')
      out.properties = Object.fromEntries(Object.entries(x).map(([name, s]) => [name, convert(s)]));
    else if (k === 'enum' || k === 'default' || k === 'example' || k.startsWith('x-')) out[k] = structuredClone(x);
    else out[k] = convert(x);
  }
  return out;
}

function v2Ref(ref: string): string {
  return ref.startsWith(V3_REF_PREFIX) ? V2_REF_PREFIX + ref.slice(V3_REF_PREFIX.length) : ref;
}

function v2Parameter(p: ParameterSpec): Record<string, unknown> {
  return {
    uniqueItems: true,
    type: p.type,
    ...(p.format ? { format: p.format } : {}),
    description: p.description,
    name: p.name,
    in: p.in,
    ...(p.required ? { required: true } : {}),
  };
}

function v2Operation(o: RouteOperation): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [];
  if (o.body)
    parameters.push({
      name: 'body',
      in: 'body',
      ...(o.body.required ? { required: true } : {}),
      schema: { $ref: V2_REF_PREFIX + o.body.schema },
    });
  parameters.push(...o.parameters.map(v2Parameter));
  const responses: Record<string, unknown> = {};
  for (const r of o.responses)
    responses[r.code] = r.schema
      ? { description: r.description, schema: { $ref: V2_REF_PREFIX + r.schema } }
      : r.type
        ? { description: r.description, schema: { type: r.type } }
        : { description: r.description };
  return {
    description: o.description,
    consumes: o.body ? [...o.body.contentTypes] : ['*/*'],
    produces: [...o.produces],
    schemes: ['https'],
    tags: [o.tag],
    operationId: o.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
    'x-kubernetes-action': o.action,
    'x-kubernetes-group-version-kind': { ...o.gvk },
  };
}

function v2PathItem(p: RoutePath): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const o of p.operations) item[o.method] = v2Operation(o);
  if (p.parameters.length > 0) item.parameters = p.parameters.map(v2Parameter);
  return item;
}

/**
 * GET /openapi/v2: one Swagger 2.0 document for every served group-version (as kube-apiserver merges its
 * aggregated specs), paths sorted, definitions sorted and limited to those referred to. Each kind's subresources are
 * those given with it (default: those its definition declares); the virtual resources' create paths are listed too.
 */
export function swaggerDocument(
  served: readonly { def: ResourceDefinition; version: string; subresources?: readonly SubresourceInfo[] }[],
  info: OpenAPIInfo = DEFAULT_OPENAPI_INFO,
  virtual: readonly VirtualResourceInfo[] = [],
): SwaggerDocument {
  const routes = [
    ...served.flatMap(({ def, version, subresources }) => routesOf(def, version, subresources)),
    ...virtual.flatMap(virtualRoutes),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const v3Schemas: Record<string, JSONSchema> = {};
  const roots = new Set<string>();
  for (const { def, version } of served)
    for (const [name, schema] of Object.entries(kindSchemas(def, version))) {
      v3Schemas[name] = schema;
      roots.add(name);
    }
  // A subresource's own kind the served kinds do not define: the opaque object its route gives.
  for (const r of routes)
    for (const [name, schema] of Object.entries(r.schemas ?? {}))
      if (!v3Schemas[name]) {
        v3Schemas[name] = schema;
        roots.add(name);
      }
  const schemaNames = new Set<string>(roots);
  for (const r of routes)
    for (const o of r.operations) {
      if (o.body) schemaNames.add(o.body.schema);
      for (const resp of o.responses) if (resp.schema) schemaNames.add(resp.schema);
    }
  for (const name of referencedDefinitions([...schemaNames].map((n) => v3Schemas[n] ?? META_DEFINITIONS[n]))) schemaNames.add(name);
  const definitions: Record<string, Record<string, unknown>> = {};
  for (const name of [...schemaNames].sort()) {
    const schema = v3Schemas[name] ?? META_DEFINITIONS[name];
    if (schema) definitions[name] = toV2Schema(schema, roots.has(name));
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) paths[r.path] = v2PathItem(r);
  return {
    swagger: '2.0',
    info: { ...info },
    paths,
    definitions,
    securityDefinitions: structuredClone(BEARER_TOKEN_SCHEME),
    security: [{ BearerToken: [] }],
  };
}

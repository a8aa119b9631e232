import type { JSONSchema, ResourceDefinition } from '@kapi/registry';
import { definitionSubresources, type SubresourceInfo, type VirtualResourceInfo } from '../discovery/documents.ts';
import { kindSchemas, referencedDefinitions } from './kind-schemas.ts';
import { META_DEFINITIONS } from './meta-definitions.ts';
import { ref } from './names.ts';
import type { ParameterSpec } from './parameters.ts';
import { type RouteOperation, type RoutePath, routesOf, virtualRoutes } from './routes.ts';

/** OpenAPI v3 as kube-openapi's spec3 package marshals it (the subset kapi writes). */
export interface OpenAPIV3Document {
  openapi: '3.0.0';
  info: OpenAPIInfo;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JSONSchema>; securitySchemes: Record<string, unknown> };
  security: Record<string, string[]>[];
}

export interface OpenAPIInfo {
  title: string;
  version: string;
}

/** kube-apiserver's info block. */
export const DEFAULT_OPENAPI_INFO: OpenAPIInfo = { title: 'Kubernetes', version: 'v0.1.0' };

export const BEARER_TOKEN_SCHEME = {
  BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' },
} as const;

function v3Parameter(p: ParameterSpec): Record<string, unknown> {
  return {
    name: p.name,
    in: p.in,
    description: p.description,
    ...(p.required ? { required: true } : {}),
    schema: { type: p.type, ...(p.format ? { format: p.format } : {}), uniqueItems: true },
  };
}

function v3Operation(o: RouteOperation): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const r of o.responses) {
    const schema = r.schema ? ref(r.schema) : r.type ? { type: r.type } : undefined;
    responses[r.code] = schema
      ? { description: r.description, content: Object.fromEntries(o.produces.map((ct) => [ct, { schema }])) }
      : { description: r.description };
  }
  return {
    tags: [o.tag],
    description: o.description,
    operationId: o.operationId,
    ...(o.parameters.length > 0 ? { parameters: o.parameters.map(v3Parameter) } : {}),
    ...(o.body
      ? {
          requestBody: {
            content: Object.fromEntries(o.body.contentTypes.map((ct) => [ct, { schema: ref(o.body?.schema as string) }])),
            ...(o.body.required ? { required: true } : {}),
          },
        }
      : {}),
    responses,
    'x-kubernetes-action': o.action,
    // On an operation kube writes one GVK object; on a schema, a list.
    'x-kubernetes-group-version-kind': { ...o.gvk },
  };
}

/** A path item: its common parameters, then one entry per method. */
export function v3PathItem(p: RoutePath): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const o of p.operations) item[o.method] = v3Operation(o);
  if (p.parameters.length > 0) item.parameters = p.parameters.map(v3Parameter);
  return item;
}

/**
 * The OpenAPI v3 document of one group-version (GET /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>): the
 * paths of every kind served there and of its subresources (`subresourcesOf`, default those its definition
 * declares), and of the virtual resources served there (their create), the kinds' and lists' schemas and the shared
 * definitions they refer to.
 */
export function groupVersionDocument(
  defs: readonly ResourceDefinition[],
  version: string,
  info: OpenAPIInfo = DEFAULT_OPENAPI_INFO,
  subresourcesOf: (def: ResourceDefinition) => readonly SubresourceInfo[] = definitionSubresources,
  virtual: readonly VirtualResourceInfo[] = [],
): OpenAPIV3Document {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JSONSchema> = {};
  const routes = [...defs.flatMap((def) => routesOf(def, version, subresourcesOf(def))), ...virtual.flatMap(virtualRoutes)].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  for (const r of routes) paths[r.path] = v3PathItem(r);
  for (const def of defs) Object.assign(schemas, kindSchemas(def, version));
  // A subresource's own kind: its schema when a served kind of the document is that kind, else what its route gives.
  for (const r of routes) for (const [name, schema] of Object.entries(r.schemas ?? {})) schemas[name] ??= structuredClone(schema);
  const used = referencedDefinitions([paths, schemas]);
  for (const name of used) {
    const shared = META_DEFINITIONS[name];
    if (shared && !schemas[name]) schemas[name] = structuredClone(shared);
  }
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k] as JSONSchema]),
  );
  return {
    openapi: '3.0.0',
    info: { ...info },
    paths,
    components: { schemas: sorted, securitySchemes: structuredClone(BEARER_TOKEN_SCHEME) },
    security: [{ BearerToken: [] }],
  };
}

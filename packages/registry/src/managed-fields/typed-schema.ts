import { FieldSet, fromOpenAPI, makePath, type OpenAPISchemaObject, type TypedSchema } from '@kapi/apimachinery';
import { OBJECT_META_OPENAPI } from '../metav1.ts';
import type { ResourceDefinition } from '../resource-definition.ts';

/**
 * The OpenAPI schema of a whole object of one version: apiVersion, kind, kube's ObjectMeta (labels and annotations
 * granular maps, ownerReferences a map list keyed by uid, finalizers a set, managedFields atomic) and the version's
 * own fields. A CRD's version schema is its structural schema, so its list and map types drive ownership alike.
 */
function objectOpenAPI(def: ResourceDefinition, version: string): OpenAPISchemaObject {
  const v = def.version(version);
  if (!v) throw new Error(`no version ${version} of ${def.kind}`);
  return withTypeAndObjectMeta(v.schema.openAPI() as OpenAPISchemaObject);
}

/** `body` (an object's own fields) with apiVersion and kind strings and kube's ObjectMeta as metadata. */
export function withTypeAndObjectMeta(body: OpenAPISchemaObject): OpenAPISchemaObject {
  return {
    ...body,
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: OBJECT_META_OPENAPI as OpenAPISchemaObject,
      ...(body.properties ?? {}),
    },
  };
}

/** The typed schema of a version's objects (built by the caller once per version). */
export function typedSchemaOf(def: ResourceDefinition, version: string): TypedSchema {
  return fromOpenAPI(objectOpenAPI(def, version));
}

/**
 * The strategy's reset fields (kube's GetResetFields) of an endpoint: what a write through it never sets, so nobody
 * owns it through it and an apply to it never conflicts over it. The main resource of a kind with a status
 * subresource resets status; the status subresource resets every top-level field but status and metadata (kube's
 * custom-resource status strategy names `spec`; the other top-level fields are discarded just the same).
 */
export function resetFieldsOf(def: ResourceDefinition, version: string, subresource: string | undefined): FieldSet {
  if (subresource === 'status') {
    const props = Object.keys((def.version(version)?.schema.openAPI() as OpenAPISchemaObject | undefined)?.properties ?? {});
    const reset = props.filter((p) => p !== 'status' && p !== 'metadata' && p !== 'apiVersion' && p !== 'kind');
    return FieldSet.fromPaths(reset.map((p) => makePath(p)));
  }
  if (!subresource && def.subresources.status) return FieldSet.fromPaths([makePath('status')]);
  return FieldSet.empty();
}

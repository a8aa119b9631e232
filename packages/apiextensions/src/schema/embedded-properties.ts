import { type JSONSchema, OBJECT_META_OPENAPI } from '@kapi/registry';
import type { JSONSchemaProps } from './json-schema-props.ts';

const API_VERSION: JSONSchemaProps = {
  type: 'string',
  description:
    'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
};
const KIND: JSONSchemaProps = {
  type: 'string',
  description:
    'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
};
const METADATA = {
  ...OBJECT_META_OPENAPI,
  description:
    "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
} as JSONSchema as JSONSchemaProps;

/**
 * kube's addEmbeddedProperties (controller/openapi/builder): every `x-kubernetes-embedded-resource` object under `s`
 * gets apiVersion and kind strings and ObjectMeta as its metadata (replacing what the schema said), both required —
 * so the published OpenAPI, and the type server-side apply gives a custom resource, see an embedded object's
 * metadata as kube does (finalizers a set, ownerReferences keyed by uid, labels granular). Mutates the nodes of `s`
 * (the caller's own copy), never what they share with others.
 */
export function addEmbeddedProperties(s: JSONSchemaProps | undefined): void {
  if (!s) return;
  for (const p of Object.values(s.properties ?? {})) addEmbeddedProperties(p);
  if (s.items && !Array.isArray(s.items)) addEmbeddedProperties(s.items);
  if (typeof s.additionalProperties === 'object') addEmbeddedProperties(s.additionalProperties);
  if (s['x-kubernetes-embedded-resource'] !== true) return;
  s.properties = { ...s.properties, apiVersion: API_VERSION, kind: KIND, metadata: METADATA };
  // A new array: `required` may be the structural schema's own (validation reads it).
  const required = [...(s.required ?? [])];
  for (const r of ['kind', 'apiVersion']) if (!required.includes(r)) required.push(r);
  s.required = required;
}

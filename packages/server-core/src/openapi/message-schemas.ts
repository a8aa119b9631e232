import { formatGroupVersion } from '@kapi/apimachinery';
import type { JSONSchema } from '@kapi/registry';
import protobuf from 'protobufjs';
import { kubernetesMessageOf } from '../endpoints/protobuf/codec.ts';
import { kubeType, NOT_JSON_OBJECTS } from '../endpoints/protobuf/schema.ts';
import { API_VERSION_PROPERTY, describedRef, KIND_PROPERTY, OBJECT_METADATA_DESCRIPTION } from './meta-definitions.ts';
import { definitionName, FIELDS_V1, OBJECT_META, ref, TIME } from './names.ts';

/** Messages of meta/v1 the reviews embed, by their definition names (kube-openapi names them by their Go package). */
const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const META_MESSAGES = new Set(['LabelSelectorRequirement', 'FieldSelectorRequirement']);

/** Scalar protobuf types as OpenAPI types. */
const SCALARS: Readonly<Record<string, JSONSchema>> = {
  string: { type: 'string' },
  bool: { type: 'boolean' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  bytes: { type: 'string', format: 'byte' },
};

/** The JSON forms of the messages that are no objects of their fields (NOT_JSON_OBJECTS), as schemas. */
const NOT_OBJECT_SCHEMAS: Readonly<Record<string, JSONSchema>> = {
  Time: ref(TIME),
  MicroTime: ref(TIME),
  FieldsV1: ref(FIELDS_V1),
  // A []string in Go and JSON.
  ExtraValue: { type: 'array', items: { type: 'string' } },
};

/**
 * The OpenAPI schemas of a kind the protobuf codec models but no ResourceDefinition describes (the reviews, TokenRequest),
 * built from its message: the kind's definition (TypeMeta, metadata as ObjectMeta, x-kubernetes-group-version-kind)
 * and one definition per nested message, named as kube-openapi names them. The messages list the Go fields by their
 * JSON names and types, which is what `kubectl explain` and kubectl's field validation read; kube's descriptions are
 * not in them. Undefined for a kind the codec does not model.
 */
export function messageKindSchemas(gvk: { group: string; version: string; kind: string }): Record<string, JSONSchema> | undefined {
  const message = kubernetesMessageOf(formatGroupVersion(gvk), gvk.kind);
  if (message === undefined) return undefined;
  const out: Record<string, JSONSchema> = {};
  const nameOf = (t: protobuf.Type): string =>
    t.name === 'ObjectMeta'
      ? OBJECT_META
      : META_MESSAGES.has(t.name)
        ? `${META_V1}.${t.name}`
        : definitionName(gvk.group, gvk.version, t.name);
  const fieldSchema = (field: protobuf.Field): JSONSchema => {
    const t = field.resolvedType;
    let item: JSONSchema;
    if (!(t instanceof protobuf.Type)) item = { ...(SCALARS[field.type] ?? { type: 'string' }) };
    else if (NOT_JSON_OBJECTS.has(t.name)) item = { ...(NOT_OBJECT_SCHEMAS[t.name] ?? { type: 'object' }) };
    else item = ref(define(t));
    if (field.map) return { type: 'object', additionalProperties: item };
    if (field.repeated) return { type: 'array', items: item };
    return item;
  };
  const define = (t: protobuf.Type): string => {
    const name = nameOf(t);
    // ObjectMeta and its parts are the shared definitions every document carries.
    if (name === OBJECT_META || out[name]) return name;
    out[name] = { type: 'object' }; // claimed before its fields are walked, so that no message is defined twice
    out[name] = { type: 'object', properties: Object.fromEntries(t.fieldsArray.map((f) => [f.name, fieldSchema(f)])) };
    return name;
  };
  const root = kubeType(message);
  const own = define(root);
  const props = (out[own] as JSONSchema & { properties: Record<string, JSONSchema> }).properties;
  out[own] = {
    type: 'object',
    properties: {
      apiVersion: API_VERSION_PROPERTY,
      kind: KIND_PROPERTY,
      ...props,
      metadata: describedRef(OBJECT_META, OBJECT_METADATA_DESCRIPTION),
    },
    'x-kubernetes-group-version-kind': [{ group: gvk.group, version: gvk.version, kind: gvk.kind }],
  };
  return out;
}

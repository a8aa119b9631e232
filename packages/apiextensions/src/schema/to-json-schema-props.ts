import { setOwn } from '@kapi/apimachinery';
import type { JSONSchemaProps } from './json-schema-props.ts';
import type { Extensions, Generic, NestedValueValidation, Structural, ValueValidation } from './structural.ts';
import { SCALAR_VALUE_FIELDS } from './value-validation-fields.ts';

/**
 * ToKubeOpenAPI (schema/kubeopenapi.go): a structural schema back as a JSONSchemaProps, faithful and round-trippable
 * (`newStructural(toJSONSchemaProps(s))` equals `s`), for what takes a schema: the value validator, OpenAPI
 * publishing, `kubectl explain`.
 */
export function toJSONSchemaProps(s: Structural): JSONSchemaProps {
  const ret: JSONSchemaProps = {};
  if (s.items !== undefined) ret.items = toJSONSchemaProps(s.items);
  if (s.properties !== undefined) ret.properties = mapValues(s.properties, toJSONSchemaProps);
  if (s.additionalProperties !== undefined) {
    const { structural, bool } = s.additionalProperties;
    ret.additionalProperties = structural !== undefined ? toJSONSchemaProps(structural) : bool;
  }
  addGeneric(s, ret);
  addExtensions(s, ret);
  if (s.valueValidation !== undefined) addValueValidation(s.valueValidation, ret);
  if (s.xValidations?.length) ret['x-kubernetes-validations'] = s.xValidations;
  return ret;
}

function mapValues<V>(m: Map<string, V>, f: (v: V) => JSONSchemaProps): Record<string, JSONSchemaProps> {
  const out: Record<string, JSONSchemaProps> = {};
  for (const [k, v] of m) setOwn(out, k, f(v));
  return out;
}

function addGeneric(g: Generic & { externalDocs?: JSONSchemaProps['externalDocs'] }, ret: JSONSchemaProps): void {
  if (g.type) ret.type = g.type;
  if (g.nullable) ret.nullable = true;
  if (g.description) ret.description = g.description;
  if (g.title) ret.title = g.title;
  if (g.default !== undefined) ret.default = g.default;
  if (g.externalDocs !== undefined) ret.externalDocs = g.externalDocs;
}

function addExtensions(x: Extensions, ret: JSONSchemaProps): void {
  if (x.xPreserveUnknownFields) ret['x-kubernetes-preserve-unknown-fields'] = true;
  if (x.xEmbeddedResource) ret['x-kubernetes-embedded-resource'] = true;
  if (x.xIntOrString) ret['x-kubernetes-int-or-string'] = true;
  if (x.xListMapKeys?.length) ret['x-kubernetes-list-map-keys'] = x.xListMapKeys;
  if (x.xListType !== undefined) ret['x-kubernetes-list-type'] = x.xListType;
  if (x.xMapType !== undefined) ret['x-kubernetes-map-type'] = x.xMapType;
}

const SCALARS = ['format', ...SCALAR_VALUE_FIELDS, 'enum', 'maxProperties', 'minProperties', 'required'] as const;

function addValueValidation(v: ValueValidation, ret: JSONSchemaProps): void {
  for (const f of SCALARS) if (v[f] !== undefined) (ret as Record<string, unknown>)[f] = v[f];
  if (v.allOf !== undefined) ret.allOf = v.allOf.map(nestedToJSONSchemaProps);
  if (v.anyOf !== undefined) ret.anyOf = v.anyOf.map(nestedToJSONSchemaProps);
  if (v.oneOf !== undefined) ret.oneOf = v.oneOf.map(nestedToJSONSchemaProps);
  if (v.not !== undefined) ret.not = nestedToJSONSchemaProps(v.not);
}

function nestedToJSONSchemaProps(n: NestedValueValidation): JSONSchemaProps {
  const ret: JSONSchemaProps = {};
  addValueValidation(n, ret);
  if (n.xValidations?.length) ret['x-kubernetes-validations'] = n.xValidations;
  if (n.items !== undefined) ret.items = nestedToJSONSchemaProps(n.items);
  if (n.properties !== undefined) ret.properties = mapValues(n.properties, nestedToJSONSchemaProps);
  // Refused by validateStructural; kept (additionalProperties: true comes back as {}).
  if (n.additionalProperties !== undefined) ret.additionalProperties = nestedToJSONSchemaProps(n.additionalProperties);
  // Normally empty; the int-or-string patterns put a type here.
  addGeneric(n.forbiddenGenerics, ret);
  addExtensions(n.forbiddenExtensions, ret);
  return ret;
}

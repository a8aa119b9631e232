import type { JSONSchemaProps } from './json-schema-props.ts';
import type { Extensions, Generic, NestedValueValidation, Structural, ValueValidation } from './structural.ts';
import { SCALAR_VALUE_FIELDS } from './value-validation-fields.ts';

/**
 * NewStructural (convert.go): the structural form of an OpenAPI v3 schema. It throws, with kube's words, on what a
 * CRD schema may not use at all (id, $schema, $ref, patternProperties, dependencies, additionalItems, definitions,
 * items as an array, x-kubernetes-preserve-unknown-fields false); the CRD validation refuses those first, so a
 * validated schema never throws here. externalDocs and example are not kept (externalDocs is kept under
 * allOf/anyOf/oneOf/not, to be refused there). A JSON null in a field counts as the field being absent.
 */
export function newStructural(s: JSONSchemaProps): Structural {
  validateUnsupportedFields(s);
  const ss: Structural = { ...newGenerics(s), ...newExtensions(s), valueValidation: newValueValidation(s) };
  if (s.items != null) ss.items = newStructural(singleItems(s.items));
  const props = nonEmptyEntries(s.properties);
  if (props.length > 0) ss.properties = new Map(props.map(([k, v]) => [k, newStructural(v)]));
  // Go copies these slices as they are: an empty list is kept, and is not Go's zero value (reflect.DeepEqual).
  if (s['x-kubernetes-validations'] != null) ss.xValidations = s['x-kubernetes-validations'];
  return ss;
}

function singleItems(items: JSONSchemaProps | JSONSchemaProps[]): JSONSchemaProps {
  if (Array.isArray(items)) throw new Error("OpenAPIV3Schema 'items' must be a schema, but is an array");
  return items;
}

function nonEmptyEntries<V>(m: Record<string, V> | undefined | null): [string, V][] {
  return m == null ? [] : Object.entries(m);
}

function newGenerics(s: JSONSchemaProps): Generic {
  const g: Generic = {};
  if (s.type) g.type = s.type;
  if (s.description) g.description = s.description;
  if (s.title) g.title = s.title;
  if (s.nullable) g.nullable = true;
  if (s.default !== undefined && s.default !== null) g.default = s.default;
  const ap = s.additionalProperties;
  if (ap != null) {
    g.additionalProperties = typeof ap === 'boolean' ? { bool: ap } : { structural: newStructural(ap), bool: true };
  }
  return g;
}

function newExtensions(s: JSONSchemaProps): Extensions {
  const x: Extensions = {};
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (preserve != null) {
    if (!preserve) throw new Error("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined");
    x.xPreserveUnknownFields = true;
  }
  if (s['x-kubernetes-embedded-resource']) x.xEmbeddedResource = true;
  if (s['x-kubernetes-int-or-string']) x.xIntOrString = true;
  if (s['x-kubernetes-list-map-keys'] != null) x.xListMapKeys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] != null) x.xListType = s['x-kubernetes-list-type'];
  if (s['x-kubernetes-map-type'] != null) x.xMapType = s['x-kubernetes-map-type'];
  return x;
}

const VALUE_FIELDS = ['format', ...SCALAR_VALUE_FIELDS, 'maxProperties', 'minProperties'] as const;

function newValueValidation(s: JSONSchemaProps): ValueValidation {
  const v: ValueValidation = {};
  for (const f of VALUE_FIELDS) {
    const value = s[f];
    // Go's zero values (false, "") are the field being unset; a number 0 is set (a pointer in Go).
    if (value != null && value !== false && value !== '') (v as Record<string, unknown>)[f] = value;
  }
  if (s.enum?.length) v.enum = s.enum;
  if (s.required != null) v.required = s.required;
  if (s.not != null) v.not = newNestedValueValidation(s.not);
  if (s.allOf?.length) v.allOf = s.allOf.map(newNestedValueValidation);
  if (s.anyOf?.length) v.anyOf = s.anyOf.map(newNestedValueValidation);
  if (s.oneOf?.length) v.oneOf = s.oneOf.map(newNestedValueValidation);
  return v;
}

function newNestedValueValidation(s: JSONSchemaProps): NestedValueValidation {
  validateUnsupportedFields(s);
  const { additionalProperties: _, ...generics } = newGenerics(s);
  const v: NestedValueValidation = {
    ...newValueValidation(s),
    forbiddenGenerics: s.externalDocs != null ? { ...generics, externalDocs: s.externalDocs } : generics,
    forbiddenExtensions: newExtensions(s),
  };
  if (s.items != null) v.items = newNestedValueValidation(singleItems(s.items));
  // Go keeps an empty properties map here (and only here), so `{type: integer, properties: {}}` is not one of the
  // int-or-string patterns.
  if (s.properties != null) v.properties = new Map(nonEmptyEntries(s.properties).map(([k, p]) => [k, newNestedValueValidation(p)]));
  const ap = s.additionalProperties;
  if (ap != null) v.additionalProperties = typeof ap === 'boolean' ? emptyNested() : newNestedValueValidation(ap);
  if (s['x-kubernetes-validations'] != null) v.xValidations = s['x-kubernetes-validations'];
  return v;
}

/** What additionalProperties: true/false under a junctor stands for: present, and refused as such. */
function emptyNested(): NestedValueValidation {
  return { forbiddenGenerics: {}, forbiddenExtensions: {} };
}

/** validateUnsupportedFields: what validation refuses before, so never seen here on a validated schema. */
function validateUnsupportedFields(s: JSONSchemaProps): void {
  if (s.id) throw new Error("OpenAPIV3Schema 'id' is not supported");
  if (s.$schema) throw new Error("OpenAPIV3Schema 'schema' is not supported");
  if (s.$ref) throw new Error("OpenAPIV3Schema '$ref' is not supported");
  if (nonEmptyEntries(s.patternProperties).length > 0) throw new Error("OpenAPIV3Schema 'patternProperties' is not supported");
  if (nonEmptyEntries(s.dependencies).length > 0) throw new Error("OpenAPIV3Schema 'dependencies' is not supported");
  if (s.additionalItems != null) throw new Error("OpenAPIV3Schema 'additionalItems' is not supported");
  if (nonEmptyEntries(s.definitions).length > 0) throw new Error("OpenAPIV3Schema 'definitions' is not supported");
}

import type { ExternalDocumentation, JSON as JSONValue, ValidationRule } from './json-schema-props.ts';

/**
 * A structural schema (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/structural.go): the shape of a value
 * (type, properties, items, additionalProperties, the x-kubernetes extensions) apart from the value validations, which
 * sit in `valueValidation` and may only restrict what the shape already names. Go embeds Generic and Extensions;
 * here their fields are on the Structural itself, as Go's field promotion reads them.
 */
export interface Structural extends Generic, Extensions {
  items?: Structural;
  /** Keys are data (a property may be called `__proto__`), hence a Map. */
  properties?: Map<string, Structural>;
  xValidations?: ValidationRule[];
  valueValidation?: ValueValidation;
}

/** additionalProperties: a schema for the values of other keys, or whether other keys are allowed. */
export interface StructuralOrBool {
  structural?: Structural;
  bool: boolean;
}

/** The schema fields that shape a value and are not value validation. */
export interface Generic {
  description?: string;
  /** object, array, number, integer, boolean or string; empty only with preserve-unknown-fields or int-or-string. */
  type?: string;
  title?: string;
  /** A default of JSON null is no default, as Go's nil interface. */
  default?: JSONValue;
  additionalProperties?: StructuralOrBool;
  nullable?: boolean;
}

/** The Kubernetes OpenAPI v3 vendor extensions. */
export interface Extensions {
  /** False inherits the parent's pruning; it never switches pruning on. */
  xPreserveUnknownFields?: boolean;
  xEmbeddedResource?: boolean;
  xIntOrString?: boolean;
  xListMapKeys?: string[];
  xListType?: string;
  xMapType?: string;
}

/** The schema fields that restrict a value without adding to its shape. */
export interface ValueValidation {
  format?: string;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: JSONValue[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  allOf?: NestedValueValidation[];
  oneOf?: NestedValueValidation[];
  anyOf?: NestedValueValidation[];
  not?: NestedValueValidation;
}

/**
 * A schema under allOf/anyOf/oneOf/not: value validations, items and properties, and what would make the schema
 * non-structural there (the generic fields and extensions), kept apart to be reported.
 */
export interface NestedValueValidation extends ValueValidation {
  items?: NestedValueValidation;
  properties?: Map<string, NestedValueValidation>;
  additionalProperties?: NestedValueValidation;
  xValidations?: ValidationRule[];
  /** Set only to be refused (or matched as one of the two int-or-string patterns). */
  forbiddenGenerics: Generic & { externalDocs?: ExternalDocumentation };
  forbiddenExtensions: Extensions;
}

/**
 * apiextensions.k8s.io/v1 JSONSchemaProps as it travels on the wire (types_jsonschema.go): a JSON-Schema draft 4
 * subset with OpenAPI v3 and Kubernetes extensions. Field names are the JSON names. Go's `omitempty` booleans and
 * strings are optional here; an absent field and Go's zero value mean the same.
 */

/** Any JSON value (kube's apiextensions JSON: bool, int64, float64, string, array, object, null). */
export type JSON = null | boolean | number | string | JSON[] | { [key: string]: JSON };

/** Why a field failed a CEL rule (ValidationRule.reason); unknown reasons are treated as FieldValueInvalid. */
export type FieldValueErrorReason = 'FieldValueRequired' | 'FieldValueDuplicate' | 'FieldValueInvalid' | 'FieldValueForbidden';

/** One `x-kubernetes-validations` entry: a CEL rule scoped to where it sits in the schema. */
export interface ValidationRule {
  /** The CEL expression; `self` is the value here, `oldSelf` (a transition rule) the value before the update. */
  rule: string;
  /** Shown when the rule fails; default `failed rule: {rule}`. Must have no line breaks. */
  message?: string;
  /** A CEL expression giving the message; wins over `message` when it evaluates to a usable string. */
  messageExpression?: string;
  /** The reason returned to the caller; default FieldValueInvalid. */
  reason?: FieldValueErrorReason | (string & {});
  /** A relative JSON path (`.spec.foo`, `.list['a.b']`) of the field the error names. */
  fieldPath?: string;
  /** Evaluate a transition rule on create too, `oldSelf` then being an optional. */
  optionalOldSelf?: boolean;
}

export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  /** OpenAPI v3 format; unknown formats are ignored. */
  format?: string;
  title?: string;
  /** The value of an absent (or, with nullable false, null) field. */
  default?: JSON;
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
  enum?: JSON[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** A schema for every item, or (JSONSchemaPropsOrArray) one schema per position. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  /** JSONSchemaPropsOrBool: a schema for the values of other keys, or whether other keys are allowed. */
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  /** JSONSchemaPropsOrStringArray per key. */
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: ExternalDocumentation;
  example?: JSON;
  nullable?: boolean;
  /** Keep fields the schema does not name (recursively, until properties or additionalProperties say otherwise). True or absent. */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** The value is an embedded object with apiVersion, kind and metadata. Needs type object. */
  'x-kubernetes-embedded-resource'?: boolean;
  /** Integer or string (the anyOf/allOf forms of types_jsonschema.go may spell it out). */
  'x-kubernetes-int-or-string'?: boolean;
  /** The keys of an `x-kubernetes-list-type: map` list: scalar properties of its items. */
  'x-kubernetes-list-map-keys'?: string[];
  /** atomic (default), set or map. */
  'x-kubernetes-list-type'?: string;
  /** granular (default) or atomic. */
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

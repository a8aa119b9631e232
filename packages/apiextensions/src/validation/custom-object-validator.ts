import type { FieldError } from '@kapi/apimachinery';
import { validateEmbeddedResources } from '../schema/embedded-object-meta.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { newStructural } from '../schema/new-structural.ts';
import { validateListSetsAndMaps } from './list-type.ts';
import { relevantPart } from './relevant-part.ts';
import { compileSchemaNode, validateNode } from './schema-validator.ts';
import { toFieldErrors } from './to-field-errors.ts';

export interface ValidateCustomObjectOptions {
  /**
   * The path the errors are reported under. Absent, as kube-apiserver validates a custom resource, errors on the
   * whole value (oneOf/anyOf/allOf/not, a forbidden property at the root) are reported on `<nil>`.
   */
  basePath?: string;
}

/** A schema compiled once, to validate many values against. */
export interface CompiledValidator {
  /** Field errors for `value` (a decoded JSON value), [] when it is valid. */
  validate(value: unknown, options?: ValidateCustomObjectOptions): FieldError[];
}

export interface SchemaValidatorOptions {
  /**
   * Drop the formats apiextensions-apiserver does not support for a node's type (StripUnsupportedFormatsPostProcess),
   * as it does for custom resources. Default true; kube checks a CRD's `default` values with every format kept.
   */
  stripUnsupportedFormats?: boolean;
}

/**
 * kube's ValidateCustomResource alone: the schema's value validations as kube-openapi checks them (types, formats,
 * enum, pattern, bounds, lengths, items, required, nullable, oneOf/anyOf/allOf/not, additionalProperties,
 * int-or-string), with kube's messages and field paths. Any OpenAPI v3 schema kube accepts, structural or not
 * (patternProperties, dependencies and additionalItems are checked too). Also what checks a `default`.
 */
export function compileSchemaValidator(schema: JSONSchemaProps, options: SchemaValidatorOptions = {}): CompiledValidator {
  const root = compileSchemaNode(schema, options.stripUnsupportedFormats ?? true);
  return {
    validate(value, options = {}) {
      const result = validateNode(root, value, '');
      return result.valid ? [] : toFieldErrors(options.basePath ?? null, result.errors);
    },
  };
}

/**
 * Compiles a structural schema (a CRD version's openAPIV3Schema) into the validator kube-apiserver's custom
 * resource strategy runs on every create and update, minus the object's own metadata (the Store's part) and the
 * x-kubernetes-validations CEL rules: ValidateCustomResource, then the embedded resources (apiVersion, kind,
 * metadata), then x-kubernetes-list-type set/map uniqueness. No ratcheting: an update is validated as a create.
 * Throws, as newStructural does, on a schema that is not structural.
 */
export function compileCustomObjectValidator(schema: JSONSchemaProps): CompiledValidator {
  const values = compileSchemaValidator(schema);
  const structural = newStructural(schema);
  // The walks for embedded resources and list types only go where such nodes are (most schemas have none).
  const embedded = relevantPart(structural, (s) => s.xEmbeddedResource === true);
  const lists = relevantPart(structural, (s) => s.xListType === 'set' || s.xListType === 'map');
  return {
    validate(obj, options = {}) {
      const errs = values.validate(obj, options);
      // Embedded resources and lists never report on the root itself, where kube's nil path would show.
      const path = options.basePath ?? '';
      if (embedded) errs.push(...validateEmbeddedResources(path, obj, embedded, false));
      if (lists) errs.push(...validateListSetsAndMaps(path, lists, obj));
      return errs;
    },
  };
}

/** One-off form of compileCustomObjectValidator(schema).validate(obj, options). */
export function validateCustomObject(schema: JSONSchemaProps, obj: unknown, options?: ValidateCustomObjectOptions): FieldError[] {
  return compileCustomObjectValidator(schema).validate(obj, options);
}

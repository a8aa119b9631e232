import type { FieldError } from '@kapi/apimachinery';
import { type JSONSchema, type PatchMeta, patchMetaForOpenAPI, type VersionSchema } from '@kapi/registry';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './schema/defaulting.ts';
import { validateEmbeddedResources } from './schema/embedded-object-meta.ts';
import { addEmbeddedProperties } from './schema/embedded-properties.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { newStructural } from './schema/new-structural.ts';
import { prune } from './schema/pruning.ts';
import { toJSONSchemaProps } from './schema/to-json-schema-props.ts';
import { CelValidator } from './validation/cel-validator.ts';
import { compileSchemaValidator } from './validation/custom-object-validator.ts';
import { validateListSetsAndMaps } from './validation/list-type.ts';
import { relevantPart } from './validation/relevant-part.ts';

/**
 * kube's hasBlockingErr (customresource/strategy.go): a type, required, enum or size error means the object does
 * not have the shape its rules were written for (and sizes bound their cost), so the rules are not run.
 */
function blocksRules(e: FieldError): boolean {
  return (
    e.type === 'FieldValueNotSupported' ||
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'FieldValueTooMany' ||
    e.type === 'FieldValueTypeInvalid'
  );
}

const RULES_NOT_CHECKED: FieldError = {
  type: 'FieldValueInvalid',
  field: '<nil>',
  badValue: null,
  detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/** The value rules see at the root: the body with the object's apiVersion, kind and metadata. */
function wholeObject(value: Record<string, unknown>, object: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!object) return value;
  const { apiVersion, kind, metadata } = object;
  return {
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(kind === undefined ? {} : { kind }),
    ...(metadata === undefined ? {} : { metadata }),
    ...value,
  };
}

/**
 * A CRD version's openAPIV3Schema (structural) as the VersionSchema a registry Store serves: validation as
 * kube's custom resource strategy runs it (on the value with nulls dropped and defaults applied, errors under
 * root-relative paths like `spec.x`, kube's nil path `<nil>` for the root itself), decoding and unknown fields as its schemaCoercingDecoder prunes, and the
 * schema itself, without apiVersion, kind and metadata (kapi checks those for every kind), as OpenAPI.
 * Compiled once: the validator runs on every write. Throws, as newStructural does, on a schema that is not structural.
 */
export function structuralVersionSchema(openAPIV3Schema: JSONSchemaProps): VersionSchema {
  const structural = newStructural(openAPIV3Schema);
  const values = compileSchemaValidator(openAPIV3Schema);
  // Only walked where such nodes are (most schemas have none).
  const embedded = relevantPart(structural, (s) => s.xEmbeddedResource === true);
  const lists = relevantPart(structural, (s) => s.xListType === 'set' || s.xListType === 'map');
  const listErrors = (value: unknown) => (lists ? validateListSetsAndMaps('', lists, value) : []);
  const rules = CelValidator.compile(structural);
  let openAPI: JSONSchema | undefined;
  let patchMeta: PatchMeta | undefined;
  return Object.freeze({
    validate(body: Record<string, unknown>, opts: Parameters<VersionSchema['validate']>[1]) {
      const value = structuredClone(body);
      pruneNonNullableNullsWithoutDefaults(value, structural);
      applyDefaults(value, structural);
      const errors = values.validate(value);
      if (embedded) errors.push(...validateEmbeddedResources('', value, embedded, false));
      if (opts.listSetsAndMaps) errors.push(...listErrors(value));
      prune(value, structural);
      // the x-kubernetes-validations rules last, on the stored value, unless its shape is already wrong
      if (rules) {
        if (errors.some(blocksRules)) errors.push(RULES_NOT_CHECKED);
        else errors.push(...rules.validate(wholeObject(value, opts.object), opts.old ? { old: opts.old } : {}).errors);
      }
      return errors.length ? { errors } : { errors, value };
    },
    listSetAndMapErrors: (body: Record<string, unknown>) => listErrors(body),
    decode(body: Record<string, unknown>) {
      const value = structuredClone(body);
      applyDefaults(value, structural);
      prune(value, structural);
      return value;
    },
    unknownFields: (body: Record<string, unknown>) => prune(structuredClone(body), structural),
    openAPI() {
      if (!openAPI) {
        const props = toJSONSchemaProps(structural);
        // Embedded resources get kube's TypeMeta and ObjectMeta (a fresh copy: toJSONSchemaProps builds new objects).
        addEmbeddedProperties(props);
        const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = props.properties ?? {};
        openAPI = { ...props, properties: rest } as JSONSchema;
      }
      return openAPI;
    },
    patchMeta() {
      patchMeta ??= patchMetaForOpenAPI(this.openAPI());
      return patchMeta;
    },
  });
}

import { type FieldError, fieldErrors } from '@kapi/apimachinery';
import { child, index, key } from './field-path.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

interface Context {
  /** Why a default is refused here ("in top-level metadata", …), or undefined where defaults are allowed. */
  forbidDefaults?: string;
  insideResourceMeta: boolean;
}

/**
 * The structural rules ValidateCustomResourceDefinitionOpenAPISchema (apis/apiextensions/validation/validation.go)
 * checks on the JSONSchemaProps itself, at every level (properties, items, additionalProperties, allOf/anyOf/oneOf/not),
 * with kube's messages: x-kubernetes-preserve-unknown-fields only true, x-kubernetes-map-type and -list-type values
 * and the types they need, x-kubernetes-list-map-keys (map lists of objects keyed by scalar properties, no
 * duplicates, keys required or defaulted and not nullable), set and map items atomic and not nullable, uniqueItems
 * refused, additionalProperties and properties exclusive, the types and fields a CRD schema may not use (id, $ref,
 * definitions, …), no defaults in the root's apiVersion/kind/metadata nor in additionalProperties inside them, no
 * embedded resource inside metadata, and the shape of x-kubernetes-validations rules (compiling them, and the oldSelf
 * rules that need it, is the CEL package's). `isRoot` is true for a CRD version's openAPIV3Schema.
 */
export function validateSchemaRules(schema: JSONSchemaProps, path: string, isRoot = true): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, path, isRoot, { insideResourceMeta: false }, errs);
  return errs;
}

function walk(schema: JSONSchemaProps | undefined | null, path: string, isRoot: boolean, ctx: Context, errs: FieldError[]): void {
  if (schema == null) return;
  checkSupported(schema, path, ctx, errs);
  if (schema.uniqueItems) {
    errs.push(
      fieldErrors.forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'),
    );
  }
  const ap = schema.additionalProperties;
  if (ap != null) {
    if (Object.keys(schema.properties ?? {}).length !== 0 && (ap === false || typeof ap === 'object')) {
      errs.push(fieldErrors.forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    // Pruning a default without a value in a map of metadata would be ambiguous.
    const sub = ctx.insideResourceMeta ? { ...ctx, forbidDefaults: 'inside additionalProperties applying to object metadata' } : ctx;
    if (typeof ap === 'object') walk(ap, child(path, 'additionalProperties'), false, sub, errs);
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    let sub = ctx;
    if ((isRoot || schema['x-kubernetes-embedded-resource']) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, forbidDefaults: `in top-level ${name}` };
    }
    walk(prop, key(child(path, 'properties'), name), false, sub, errs);
  }
  walk(schema.not, child(path, 'not'), false, ctx, errs);
  for (const junctor of ['allOf', 'oneOf', 'anyOf'] as const) {
    schema[junctor]?.forEach((s, i) => {
      walk(s, index(child(path, junctor), i), false, ctx, errs);
    });
  }
  for (const [name, def] of Object.entries(schema.definitions ?? {})) walk(def, key(child(path, 'definitions'), name), false, ctx, errs);
  if (schema.items != null) {
    if (Array.isArray(schema.items))
      schema.items.forEach((s, i) => {
        walk(s, index(child(path, 'items'), i), false, ctx, errs);
      });
    else walk(schema.items, child(path, 'items'), false, ctx, errs);
  }
  for (const [name, dep] of Object.entries(schema.dependencies ?? {})) {
    if (!Array.isArray(dep)) walk(dep, key(child(path, 'dependencies'), name), false, ctx, errs);
  }
  checkExtensions(schema, path, errs);
  checkMapListKeysMapSet(schema, path, errs);
  checkValidationRules(schema, path, errs);
}

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** specStandardValidatorV3.validate: what a CRD schema may not use, and defaults where they are refused. */
function checkSupported(schema: JSONSchemaProps, path: string, ctx: Context, errs: FieldError[]): void {
  const forbid = (name: string, detail: string) => errs.push(fieldErrors.forbidden(child(path, name), detail));
  if (schema.type && !OPENAPI_V3_TYPES.includes(schema.type))
    errs.push(fieldErrors.notSupported(child(path, 'type'), schema.type, OPENAPI_V3_TYPES));
  if (schema.default != null && ctx.forbidDefaults !== undefined) forbid('default', `must not be set ${ctx.forbidDefaults}`);
  if (schema.id) forbid('id', 'id is not supported');
  if (schema.additionalItems != null) forbid('additionalItems', 'additionalItems is not supported');
  if (Object.keys(schema.patternProperties ?? {}).length !== 0) forbid('patternProperties', 'patternProperties is not supported');
  if (Object.keys(schema.definitions ?? {}).length !== 0) forbid('definitions', 'definitions is not supported');
  if (schema.dependencies != null) forbid('dependencies', 'dependencies is not supported');
  if (schema.$ref != null) forbid('$ref', '$ref is not supported');
  if (schema.type === 'null') forbid('type', 'type cannot be set to null, use nullable as an alternative');
  if (Array.isArray(schema.items) && schema.items.length !== 0) forbid('items', 'items must be a schema object and not an array');
  if (ctx.insideResourceMeta && schema['x-kubernetes-embedded-resource']) {
    forbid('x-kubernetes-embedded-resource', 'must not be used inside of resource meta');
  }
}

/** validateMapListKeysMapSet: items of set and map lists are not nullable; map keys are required or defaulted, never nullable. */
function checkMapListKeysMapSet(schema: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const items = schema.items;
  const listType = schema['x-kubernetes-list-type'];
  if (items == null || Array.isArray(items) || (listType !== 'set' && listType !== 'map')) return;
  const itemsPath = child(path, 'items');
  if (items.nullable)
    errs.push(fieldErrors.forbidden(child(itemsPath, 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType !== 'map') return;
  const required = new Set(items.required ?? []);
  for (const k of schema['x-kubernetes-list-map-keys'] ?? []) {
    const prop = Object.hasOwn(items.properties ?? {}, k) ? items.properties?.[k] : undefined;
    // A key that is not a property is reported by checkExtensions.
    if (prop === undefined) continue;
    const keyPath = key(child(itemsPath, 'properties'), k);
    if (!required.has(k) && prop.default == null) {
      errs.push(
        fieldErrors.required(
          child(keyPath, 'default'),
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ),
      );
    }
    if (prop.nullable)
      errs.push(
        fieldErrors.forbidden(child(keyPath, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'),
      );
  }
}

function checkExtensions(schema: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const type = schema.type ?? '';
  const preserve = schema['x-kubernetes-preserve-unknown-fields'];
  if (preserve === false)
    errs.push(fieldErrors.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));

  const mapType = schema['x-kubernetes-map-type'];
  if (mapType != null && type !== 'object') {
    const detail = 'must be object if x-kubernetes-map-type is specified';
    errs.push(type === '' ? fieldErrors.required(child(path, 'type'), detail) : fieldErrors.invalid(child(path, 'type'), type, detail));
  }
  if (mapType != null && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(fieldErrors.notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }

  const listType = schema['x-kubernetes-list-type'];
  const items = schema.items != null && !Array.isArray(schema.items) ? schema.items : undefined;
  if (listType != null && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errs.push(type === '' ? fieldErrors.required(child(path, 'type'), detail) : fieldErrors.invalid(child(path, 'type'), type, detail));
  } else if (listType === 'set' && items !== undefined) {
    const itemsListType = items['x-kubernetes-list-type'];
    if (items.type === 'array' && itemsListType != null && itemsListType !== 'atomic') {
      errs.push(
        fieldErrors.invalid(
          child(child(path, 'items'), 'x-kubernetes-list-type'),
          itemsListType,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube reports the items' list type here (nil for an object), as its code does.
      errs.push(
        fieldErrors.invalid(
          child(child(path, 'items'), 'x-kubernetes-map-type'),
          itemsListType ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
  if (listType != null && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(fieldErrors.notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }

  const mapKeys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (mapKeys.length > 0) {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (listType == null) errs.push(fieldErrors.required(child(path, 'x-kubernetes-list-type'), detail));
    else if (listType !== 'map') errs.push(fieldErrors.invalid(child(path, 'x-kubernetes-list-type'), listType, detail));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0)
      errs.push(fieldErrors.required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (schema.items == null) errs.push(fieldErrors.required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(schema.items)) {
      errs.push(fieldErrors.invalid(child(path, 'items'), schema.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    }
    if (items !== undefined && items.type !== 'object') {
      errs.push(
        fieldErrors.invalid(
          child(child(path, 'items'), 'type'),
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (items !== undefined && items.type === 'object') {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const prop = Object.hasOwn(items.properties ?? {}, k) ? items.properties?.[k] : undefined;
        if (prop !== undefined) {
          if (prop.type === 'array' || prop.type === 'object') {
            // kube names the items' type ("object") as the bad value here.
            errs.push(
              fieldErrors.invalid(
                child(key(child(child(path, 'items'), 'properties'), k), 'type'),
                items.type,
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          errs.push(
            fieldErrors.invalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'),
          );
        }
        if (seen.has(k))
          errs.push(fieldErrors.invalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

function checkValidationRules(schema: JSONSchemaProps, path: string, errs: FieldError[]): void {
  schema['x-kubernetes-validations']?.forEach((rule, i) => {
    const p = index(child(path, 'x-kubernetes-validations'), i);
    const ruleText = (rule.rule ?? '').trim();
    const message = rule.message ?? '';
    const msg = message.trim();
    if (ruleText === '') errs.push(fieldErrors.required(child(p, 'rule'), 'rule is not specified'));
    else if (message.length > 0 && msg === '')
      errs.push(fieldErrors.invalid(child(p, 'message'), message, 'message must be non-empty if specified'));
    else if (hasNewlines(msg)) errs.push(fieldErrors.invalid(child(p, 'message'), message, 'message must not contain line breaks'));
    else if (hasNewlines(ruleText) && msg === '')
      errs.push(fieldErrors.required(child(p, 'message'), 'message must be specified if rule contains line breaks'));
    const messageExpression = rule.messageExpression ?? '';
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      errs.push(fieldErrors.required(child(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason != null && !SUPPORTED_REASONS.includes(rule.reason)) {
      errs.push(fieldErrors.notSupported(child(p, 'reason'), rule.reason, SUPPORTED_REASONS));
    }
    const fieldPath = rule.fieldPath ?? '';
    if (fieldPath.length > 0 && fieldPath.trim() === '')
      errs.push(fieldErrors.invalid(child(p, 'fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fieldPath)) errs.push(fieldErrors.invalid(child(p, 'fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
  });
}

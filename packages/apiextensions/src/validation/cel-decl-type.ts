import { type CelType, listType, mapType, objectType } from '@kapi/cel';
import type { Structural } from '../schema/structural.ts';

const STRING: Structural = { type: 'string' };

/**
 * kube's WithTypeAndObjectMeta: the root of a resource (a custom resource, an embedded resource) always shows
 * `apiVersion`, `kind`, `metadata.name` and `metadata.generateName` to rules, whatever its schema declares.
 */
export function withTypeAndObjectMeta(s: Structural): Structural {
  const p = s.properties;
  const meta = p?.get('metadata');
  if (
    p?.get('kind')?.type === 'string' &&
    p.get('apiVersion')?.type === 'string' &&
    meta?.type === 'object' &&
    meta.properties?.get('name')?.type === 'string' &&
    meta.properties.get('generateName')?.type === 'string'
  )
    return s;
  const properties = new Map(p ?? []);
  properties.set('kind', STRING);
  properties.set('apiVersion', STRING);
  properties.set('metadata', {
    type: 'object',
    properties: new Map([
      ['name', STRING],
      ['generateName', STRING],
    ]),
  });
  return { ...s, properties };
}

/** The list type a `set` or `map` list's values carry into CEL (they compare ignoring order there). */
function listSemantics(s: Structural): { listType?: 'set' | 'map'; mapKeys?: readonly string[] } {
  if (s.xListType === 'set') return { listType: 'set' };
  if (s.xListType === 'map') return { listType: 'map', mapKeys: s.xListMapKeys ?? [] };
  return {};
}

/**
 * kube's SchemaDeclType (k8s.io/apiserver/pkg/cel/common/schemas.go): the CEL type of values of a structural
 * schema, or undefined where rules cannot see the value. int-or-string is `dyn`; objects with properties (or
 * embedded resources, or preserving unknown fields) are object types of their declared properties only; objects
 * with additionalProperties are maps; `number` is double, `integer` int; strings of format `byte`, `duration`,
 * `date` and `date-time` are bytes, durations and timestamps; a `nullable` property may read as null. A schema without a type (preserve-unknown-fields
 * alone) is not visible. `name` names the object types (nested ones get `name.property`).
 */
export function schemaCelType(s: Structural, isResourceRoot: boolean, name: string): CelType | undefined {
  if (s.xIntOrString) return 'dyn';
  const schema = isResourceRoot ? withTypeAndObjectMeta(s) : s;
  switch (schema.type) {
    case 'array': {
      const items = schema.items;
      const elem = items && schemaCelType(items, items.xEmbeddedResource === true, `${name}.0items`);
      return elem === undefined ? undefined : listType(elem, listSemantics(schema));
    }
    case 'object': {
      const additional = schema.additionalProperties?.structural;
      if (additional) {
        const value = schemaCelType(additional, additional.xEmbeddedResource === true, `${name}.0values`);
        return value === undefined ? undefined : mapType(value);
      }
      // keys are data (`__proto__` is a property name like any other)
      const fields: Record<string, CelType> = Object.create(null);
      const nullable: string[] = [];
      let i = 0;
      for (const [prop, sub] of schema.properties ?? []) {
        // type names take word characters only; a renamed property is numbered so two cannot meet
        const word = prop.replace(/\W/g, '_');
        const field = schemaCelType(sub, sub.xEmbeddedResource === true, `${name}.${word === prop ? prop : `${word}_${i}`}`);
        if (field !== undefined) fields[prop] = field;
        if (field !== undefined && sub.nullable === true) nullable.push(prop);
        i++;
      }
      return objectType(name, fields, nullable);
    }
    case 'string':
      switch (schema.valueValidation?.format) {
        case 'byte':
          return 'bytes';
        case 'duration':
          return 'google.protobuf.Duration';
        case 'date':
        case 'date-time':
          return 'google.protobuf.Timestamp';
      }
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'double';
    case 'integer':
      return 'int';
  }
  return undefined;
}

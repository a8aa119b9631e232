/**
 * Shorthands for structured-merge-diff's typed/*_test.go tables, ported as data: schemas in SMD's YAML form
 * (which our Schema model loads as it is), values as YAML (JSON is YAML), sets as paths.
 */
import { parse as parseYaml } from 'yaml';
import { makePath, type Path } from '../../fieldpath/path.ts';
import type { PathElement } from '../../fieldpath/path-element.ts';
import { FieldSet } from '../../fieldpath/set.ts';
import { Schema, type SchemaDefinition, type TypedSchema } from '../schema.ts';

/** A path: strings are field names, numbers indexes, objects PathElements (SMD's MakePathOrDie). */
export const P = (...parts: (string | number | PathElement)[]): Path => makePath(...parts);
/** A set of paths (SMD's NewSet). */
export const NS = (...paths: Path[]): FieldSet => FieldSet.fromPaths(paths);
/** A map-list item's key: alternating field names and values (SMD's KeyByFields). */
export function KBF(...nameValues: unknown[]): PathElement {
  const key: Record<string, unknown> = {};
  for (let i = 0; i < nameValues.length; i += 2) key[nameValues[i] as string] = nameValues[i + 1];
  return { key };
}
/** A set-list item (SMD's value.NewValueInterface). */
export const V = (value: unknown): PathElement => ({ value });

const schemas = new Map<string, Schema>();

/** The typed root `rootTypeName` of a schema in SMD's YAML form (parsed once per text). */
export function typeOf(schemaYaml: string, rootTypeName: string): TypedSchema {
  let schema = schemas.get(schemaYaml);
  if (!schema) {
    schema = new Schema(parseYaml(schemaYaml) as SchemaDefinition);
    schemas.set(schemaYaml, schema);
  }
  return { schema, typeRef: { namedType: rootTypeName } };
}

/** A YAML value as SMD's FromYAML reads it; the empty document is absent (undefined). */
export function y(text: string): unknown {
  let v: unknown;
  try {
    v = parseYaml(text);
  } catch (err) {
    // A few of SMD's values end in a stray `}` that Go's yaml.v2 ignores.
    if (!text.endsWith('}}')) throw err;
    v = parseYaml(text.slice(0, -1));
  }
  return v === null && text.trim() === '' ? undefined : v;
}

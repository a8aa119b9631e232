import type { Environment } from '@marcbachmann/cel-js';

/**
 * The declared type of a variable: a CEL type name (`int`, `string`, `list<string>`, `map<string, dyn>`,
 * `dyn`, `kubernetes.Quantity`, …) or an object type with typed fields. An object type is how a schema
 * (a CRD's openAPIV3Schema) plugs in later: a converter from schema to ObjectType gives `self` its fields,
 * so `self.spec.replicas + 'x'` fails at compile time instead of at run time.
 */
export type CelType = string | ObjectType;

export interface ObjectType {
  readonly kind: 'object';
  /** A type name unique within the environment, e.g. `example.com.v1.Widget.spec`. */
  readonly name: string;
  readonly fields: Readonly<Record<string, CelType>>;
}

export function objectType(name: string, fields: Record<string, CelType>): ObjectType {
  return { kind: 'object', name, fields };
}

/** The type's name as the CEL library spells it. */
export function typeName(type: CelType): string {
  return typeof type === 'string' ? type : type.name;
}

/** Registers an object type and every object type its fields reach (each once). */
export function registerObjectTypes(env: Environment, type: CelType, done = new Set<string>()): void {
  if (typeof type === 'string' || done.has(type.name)) return;
  done.add(type.name);
  for (const field of Object.values(type.fields)) registerObjectTypes(env, field, done);
  const fields: Record<string, string> = {};
  for (const [name, field] of Object.entries(type.fields)) fields[name] = typeName(field);
  env.registerType(type.name, { fields });
}

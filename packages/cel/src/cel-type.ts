import type { Environment } from '@marcbachmann/cel-js';
import { CEL_RESERVED_WORDS } from './reserved-words.ts';
import { CelObject, celEquals } from './values.ts';

/**
 * The declared type of a variable: a CEL type name (`int`, `string`, `list<string>`, `map<string, dyn>`,
 * `optional<int>`, `google.protobuf.Timestamp`, `dyn`, `kubernetes.Quantity`, …) or an object type with typed
 * fields. A CRD's structural schema converts to an ObjectType, so `self.spec.replicas + 'x'` fails at compile time
 * instead of at run time. Object types may appear inside type names (`list<example.v1.Item>`) once they are
 * reachable from a declared variable's ObjectType.
 */
export type CelType = string | ObjectType | ListType | MapType | OptionalType;

export interface ObjectType {
  readonly kind: 'object';
  /** A type name unique within the environment, e.g. `example.com.v1.Widget.spec`. */
  readonly name: string;
  /**
   * The fields by their JSON names. A name CEL cannot spell is escaped as kube's cel.Escape does (`my-field` is
   * `self.my__dash__field`, `namespace` is `self.__namespace__`); a name it cannot escape is not accessible.
   */
  readonly fields: Readonly<Record<string, CelType>>;
  /**
   * The JSON names of fields that may hold null (a schema's `nullable: true`): null reads as CEL's null there, as
   * kube's UnstructuredToVal makes it; elsewhere a null field is an error when read.
   */
  readonly nullable?: readonly string[];
  /**
   * The field names are CEL names as they are, not escaped: hand-built types such as kube's AdmissionRequest and
   * Namespace (where `request.namespace` is a field, since cel-go reserves words as identifiers, not as fields).
   */
  readonly rawNames?: boolean;
}

/**
 * A list of a declared element type: what a type name cannot say when the element is an ObjectType. `listType`
 * is kube's `x-kubernetes-list-type`: values of a `set` or `map` list compare ignoring order and `+` unites or merges
 * them, as kube's typed list values do (`mapKeys`: the `x-kubernetes-list-map-keys` of a map list).
 */
export interface ListType {
  readonly kind: 'list';
  readonly elem: CelType;
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly mapKeys?: readonly string[];
}

/** A map from strings to a declared value type. */
export interface MapType {
  readonly kind: 'map';
  readonly value: CelType;
}

/** An optional value (`optional<T>`): an absent JSON value is `optional.none()`, a present one `optional.of(v)`. */
export interface OptionalType {
  readonly kind: 'optional';
  readonly value: CelType;
}

export function objectType(name: string, fields: Record<string, CelType>, nullable?: readonly string[]): ObjectType {
  return nullable?.length ? { kind: 'object', name, fields, nullable } : { kind: 'object', name, fields };
}

export function listType(elem: CelType, semantics: Pick<ListType, 'listType' | 'mapKeys'> = {}): ListType {
  return { kind: 'list', elem, ...semantics };
}

export function mapType(value: CelType): MapType {
  return { kind: 'map', value };
}

export function optionalType(value: CelType): OptionalType {
  return { kind: 'optional', value };
}

/** The type's name as the CEL library spells it. */
export function typeName(type: CelType): string {
  if (typeof type === 'string') return type;
  switch (type.kind) {
    case 'object':
      return type.name;
    case 'list':
      return `list<${typeName(type.elem)}>`;
    case 'map':
      return `map<string, ${typeName(type.value)}>`;
    case 'optional':
      return `optional<${typeName(type.value)}>`;
  }
}

/** kube's cel.Escape: a property name as CEL spells it, or undefined when it cannot (k8s.io/apiserver/pkg/cel/escaping.go). */
export function escapeFieldName(name: string): string | undefined {
  if (name === '' || ((name[0] as string) >= '0' && (name[0] as string) <= '9')) return undefined;
  if (CEL_RESERVED_WORDS.has(name)) return `__${name}__`;
  let ok = true;
  const escaped = name.replace(/__|[-./]|[^a-zA-Z0-9_]/g, (s) => {
    switch (s) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      case '/':
        return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? escaped : undefined;
}

/** An object type's runtime shape: its class and its fields as CEL names them. */
export interface ObjectRuntime {
  readonly ctor: new () => CelObject;
  /** [JSON name, CEL name, field type] of each accessible field. */
  readonly fields: readonly (readonly [string, string, CelType])[];
  /** The CEL names of the fields that may hold null. */
  readonly nullable: ReadonlySet<string>;
}

const runtimes = new WeakMap<ObjectType, ObjectRuntime>();

/** One class per object type (the CEL library knows a message's type by its value's constructor). */
export function objectRuntime(type: ObjectType): ObjectRuntime {
  let runtime = runtimes.get(type);
  if (!runtime) {
    const ctor = { [type.name]: class extends CelObject {} }[type.name] as new () => CelObject;
    const fields: [string, string, CelType][] = [];
    const nullable = new Set<string>();
    for (const [json, field] of Object.entries(type.fields)) {
      const name = type.rawNames ? json : escapeFieldName(json);
      if (name === undefined) continue;
      fields.push([json, name, field]);
      if (type.nullable?.includes(json)) nullable.add(name);
    }
    runtime = { ctor, fields, nullable };
    runtimes.set(type, runtime);
  }
  return runtime;
}

/** Registers an object type and every object type its fields reach (each once), with `==` as CEL compares messages. */
export function registerObjectTypes(env: Environment, type: CelType, done = new Set<string>()): void {
  if (typeof type === 'string') return;
  if (type.kind !== 'object') {
    registerObjectTypes(env, type.kind === 'list' ? type.elem : type.value, done);
    return;
  }
  if (done.has(type.name)) return;
  done.add(type.name);
  const runtime = objectRuntime(type);
  for (const [, , field] of runtime.fields) registerObjectTypes(env, field, done);
  const fields: Record<string, string> = {};
  for (const [, name, field] of runtime.fields) fields[name] = typeName(field);
  env.registerType(type.name, { ctor: runtime.ctor, fields });
  env.registerOperator(`${type.name} == ${type.name}`, (a: unknown, b: unknown) => celEquals(a, b));
  // cel-go's checker lets a message be compared with null (its legacy nullability of structs); a null field makes it true
  env.registerOperator(`${type.name} == null`, (a: unknown, b: unknown) => a === b);
}

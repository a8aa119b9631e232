/**
 * The schema model that types values for server-side apply, as structured-merge-diff's `schema` package has it.
 *
 * The shapes mirror SMD's YAML form exactly (a TypeRef is a named type or an inline Atom, with an optional
 * elementRelationship override), so SMD's own test schemas load as they are. A `Schema` resolves TypeRefs;
 * resolution results and struct-field lookups are cached per TypeRef / Map object (by identity), so walking a
 * value costs a WeakMap lookup per node and never re-parses a schema. Treat every object here as immutable once
 * handed to a `Schema`.
 */

/** SMD's scalar kinds: `untyped` accepts any scalar (int-or-string, Quantity, date-time, unknown formats). */
export type Scalar = 'numeric' | 'string' | 'boolean' | 'untyped';

/**
 * How a list's or map's elements relate: `atomic` (the container is one leaf), `associative` (a list whose items
 * are identified by `keys`, or by their value when there are no keys), `separable` (a granular map: each entry its
 * own field). A map with no relationship (`''` or absent) is granular too.
 */
export type ElementRelationship = 'atomic' | 'associative' | 'separable';

/** A list type. `associative` with `keys` is `x-kubernetes-list-type: map`, without keys a set. */
export interface ListType {
  elementType: TypeRef;
  elementRelationship?: ElementRelationship;
  keys?: readonly string[];
}

/** A struct field: its name, type and (for associative-list keys) its default value. */
export interface StructField {
  name: string;
  type: TypeRef;
  default?: unknown;
}

/**
 * A struct or a map: named `fields` take their own types, any other key takes `elementType`; a map without an
 * elementType (`{}` or absent) does not allow other keys.
 */
export interface MapType {
  fields?: readonly StructField[];
  elementType?: TypeRef;
  elementRelationship?: ElementRelationship | '';
}

/** One or more of scalar, list and map: a value picks the one that matches its kind (SMD's deduceAtom). */
export interface Atom {
  scalar?: Scalar;
  list?: ListType;
  map?: MapType;
}

/**
 * A reference to a type: `namedType`, or else the inline Atom. `elementRelationship` overrides the referred
 * map's or list's relationship (OpenAPI's `x-kubernetes-map-type` beside a `$ref`).
 */
export interface TypeRef extends Atom {
  namedType?: string;
  elementRelationship?: ElementRelationship;
  nullable?: boolean;
}

/** A named type. */
export interface TypeDef extends Atom {
  name: string;
}

/** SMD's serializable schema: a list of named types. */
export interface SchemaDefinition {
  types: readonly TypeDef[];
}

/** Name of the type of any JSON value treated as one leaf (SMD's / kube's `__untyped_atomic_`). */
export const UNTYPED_ATOMIC = '__untyped_atomic_';
/** Name of the type deduced from a value: maps granular, lists and scalars atomic (`__untyped_deduced_`). */
export const UNTYPED_DEDUCED = '__untyped_deduced_';

/** The two common types kube's schema conversion always adds. */
export const COMMON_TYPES: readonly TypeDef[] = [
  {
    name: UNTYPED_ATOMIC,
    scalar: 'untyped',
    list: { elementType: { namedType: UNTYPED_ATOMIC }, elementRelationship: 'atomic' },
    map: { elementType: { namedType: UNTYPED_ATOMIC }, elementRelationship: 'atomic' },
  },
  {
    name: UNTYPED_DEDUCED,
    scalar: 'untyped',
    list: { elementType: { namedType: UNTYPED_ATOMIC }, elementRelationship: 'atomic' },
    map: { elementType: { namedType: UNTYPED_DEDUCED }, elementRelationship: 'separable' },
  },
];

/** True when `tr` refers to nothing (SMD's `TypeRef{}`): a map with such an elementType has no unknown keys. */
export function isEmptyTypeRef(tr: TypeRef | undefined): boolean {
  return !tr || (tr.namedType === undefined && !tr.scalar && !tr.list && !tr.map);
}

const EMPTY_FIELDS: ReadonlyMap<string, StructField> = new Map();

/** A schema whose TypeRefs resolve to Atoms; resolutions are cached. */
export class Schema {
  readonly types: ReadonlyMap<string, TypeDef>;
  private readonly resolved = new WeakMap<TypeRef, Atom | null>();
  private readonly fieldIndex = new WeakMap<MapType, ReadonlyMap<string, StructField>>();

  constructor(definition: SchemaDefinition) {
    const types = new Map<string, TypeDef>();
    for (const t of definition.types) types.set(t.name, t);
    this.types = types;
  }

  /** The deduced schema alone (SMD's DeducedParseableType): any JSON, maps granular. */
  static deduced(): Schema {
    return new Schema({ types: COMMON_TYPES });
  }

  /**
   * The Atom `tr` refers to, with its elementRelationship override applied, or undefined when a named type is
   * missing (or an override is put on a scalar, as SMD refuses it).
   */
  resolve(tr: TypeRef): Atom | undefined {
    const hit = this.resolved.get(tr);
    if (hit !== undefined) return hit ?? undefined;
    const atom = this.resolveUncached(tr);
    this.resolved.set(tr, atom ?? null);
    return atom;
  }

  private resolveUncached(tr: TypeRef): Atom | undefined {
    let base: Atom;
    if (tr.namedType !== undefined) {
      const def = this.types.get(tr.namedType);
      if (!def) return undefined;
      base = def;
    } else {
      base = tr;
    }
    const rel = tr.elementRelationship;
    if (rel === undefined) return base;
    if (base.map) return { map: { ...base.map, elementRelationship: rel } };
    if (base.list) return { list: { ...base.list, elementRelationship: rel } };
    return undefined;
  }

  /** The named struct field of `map`, if any (indexed once per MapType). */
  findField(map: MapType, name: string): StructField | undefined {
    let index = this.fieldIndex.get(map);
    if (!index) {
      if (!map.fields?.length) index = EMPTY_FIELDS;
      else {
        const m = new Map<string, StructField>();
        for (const f of map.fields) m.set(f.name, f);
        index = m;
      }
      this.fieldIndex.set(map, index);
    }
    return index.get(name);
  }

  /** The type of key `name` of `map`: its field's type, else the map's elementType (possibly empty). */
  fieldType(map: MapType, name: string): TypeRef {
    return this.findField(map, name)?.type ?? map.elementType ?? EMPTY_TYPE_REF;
  }
}

/** SMD's `TypeRef{}`: the type of a key a map does not allow. */
export const EMPTY_TYPE_REF: TypeRef = Object.freeze({});

/** A schema and the type of the values it describes (the root); what the typed operations take. */
export interface TypedSchema {
  readonly schema: Schema;
  readonly typeRef: TypeRef;
}

/** A human name for a TypeRef in errors, as SMD prints it. */
export function typeRefName(tr: TypeRef): string {
  return tr.namedType ?? 'inlined type';
}

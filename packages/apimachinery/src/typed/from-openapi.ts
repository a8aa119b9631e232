/**
 * OpenAPI v3 (a structural schema, as a kind's VersionSchema.openAPI() or a CRD version's schema gives it) →
 * `Schema`, converted as kube's managedfields.NewTypeConverter does (kube-openapi schemaconv.ToSchemaFromOpenAPI):
 *
 * - `type: object`: `properties` become struct fields (with their `default`, used for list-map keys);
 *   `additionalProperties` a schema → the map's elementType, `true` → deduced, `false` → none; absent → deduced
 *   when the object has no properties or preserves unknown fields, else none. `x-kubernetes-map-type`
 *   `atomic` / `granular` sets the relationship (absent = granular).
 * - `type: array`: `x-kubernetes-list-type` `atomic` / `set` / `map` (+ `x-kubernetes-list-map-keys`); without it
 *   `x-kubernetes-patch-strategy: merge` (+ `x-kubernetes-patch-merge-key`) makes it associative; otherwise atomic.
 * - scalars: integer / number → numeric, boolean, string → string (formats `''` / `byte`) or untyped (any other
 *   format: int-or-string, date-time, …).
 * - no `type` (int-or-string, preserve-unknown-fields nodes, anyOf): untyped scalar + list + map, the value picks.
 * - `x-kubernetes-preserve-unknown-fields: true` makes this node and everything under it keep unknown keys as
 *   deduced values (granular maps, atomic lists).
 * - `$ref` (or a one-element `allOf` of a `$ref`) refers to `definitions` by its last path segment; Quantity and
 *   RawExtension are untyped scalars, as kube hard-codes them. A kind's inline schema needs no definitions.
 *
 * Conversion happens once per schema; callers cache the result (it is immutable). Errors (unknown list or map type,
 * missing map keys) are collected and thrown together, as kube does.
 */
import {
  type Atom,
  COMMON_TYPES,
  type ElementRelationship,
  type ListType,
  type MapType,
  Schema,
  type StructField,
  type TypeDef,
  type TypedSchema,
  type TypeRef,
  UNTYPED_ATOMIC,
  UNTYPED_DEDUCED,
} from './schema.ts';

/** An OpenAPI v3 schema object (only what the conversion reads is typed). */
export interface OpenAPISchemaObject {
  type?: string | readonly string[];
  format?: string;
  properties?: Record<string, OpenAPISchemaObject>;
  additionalProperties?: OpenAPISchemaObject | boolean;
  items?: OpenAPISchemaObject | readonly OpenAPISchemaObject[];
  $ref?: string;
  allOf?: readonly OpenAPISchemaObject[];
  default?: unknown;
  [keyword: string]: unknown;
}

export interface FromOpenAPIOptions {
  /** Named schemas `$ref`s point at (`#/components/schemas/<name>` or `#/definitions/<name>`). */
  definitions?: Readonly<Record<string, OpenAPISchemaObject>>;
  /** Preserve unknown fields everywhere (a CRD's legacy `spec.preserveUnknownFields`). */
  preserveUnknownFields?: boolean;
  /**
   * ObjectMeta's schema: when given, an object marked `x-kubernetes-embedded-resource` gets `apiVersion`, `kind`
   * and this `metadata` as properties, as kube's CRD OpenAPI builder adds them (addEmbeddedProperties) before
   * the conversion.
   */
  embeddedObjectMeta?: OpenAPISchemaObject;
}

export type { TypedSchema };

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/** Converts `root` (and the definitions it refers to) into a Schema and the root's TypeRef; throws on invalid extensions. */
export function fromOpenAPI(root: OpenAPISchemaObject, options: FromOpenAPIOptions = {}): TypedSchema {
  const errors: string[] = [];
  const types: TypeDef[] = [];
  const preserve = options.preserveUnknownFields ?? false;
  const embed = options.embeddedObjectMeta;
  const prepare = (s: OpenAPISchemaObject) => (embed ? withEmbeddedProperties(s, embed) : s);
  for (const [name, spec] of Object.entries(options.definitions ?? {})) {
    if (refOf(spec)) continue; // top-level references are skipped, as kube does
    if (name === QUANTITY || name === RAW_EXTENSION) types.push({ name, scalar: 'untyped' });
    else types.push({ name, ...visit(prepare(spec), preserve, name, errors) });
  }
  const typeRef: TypeRef = visit(prepare(root), preserve, 'root', errors);
  if (errors.length) throw new Error(errors.join('\n'));
  types.push(...COMMON_TYPES);
  return { schema: new Schema({ types }), typeRef };
}

function visit(s: OpenAPISchemaObject, preserveUnknown: boolean, name: string, errors: string[]): Atom {
  const preserve = preserveUnknown || s['x-kubernetes-preserve-unknown-fields'] === true;
  const typ = typeof s.type === 'string' ? s.type : (s.type?.[0] ?? '');
  const report = (msg: string) => errors.push(`${name}: ${msg}`);
  switch (typ) {
    case '':
      return { scalar: 'untyped', list: parseList(s, preserve, name, report, errors), map: parseObject(s, preserve, name, report, errors) };
    case 'object':
      return { map: parseObject(s, preserve, name, report, errors) };
    case 'array':
      return { list: parseList(s, preserve, name, report, errors) };
    case 'integer':
    case 'number':
      return { scalar: 'numeric' };
    case 'boolean':
      return { scalar: 'boolean' };
    case 'string':
      return { scalar: !s.format || s.format === 'byte' ? 'string' : 'untyped' };
    default:
      report(`unrecognized type: '${typ}'`);
      return { scalar: 'untyped' };
  }
}

function refOf(s: OpenAPISchemaObject): string | undefined {
  if (typeof s.$ref === 'string' && s.$ref) return s.$ref;
  const only = s.allOf?.length === 1 ? s.allOf[0] : undefined;
  if (only && typeof only.$ref === 'string' && only.$ref) return only.$ref;
  return undefined;
}

function makeRef(s: OpenAPISchemaObject, preserve: boolean, name: string, report: (m: string) => void, errors: string[]): TypeRef {
  const ref = refOf(s);
  if (ref) {
    const target = ref.slice(ref.lastIndexOf('/') + 1);
    if (target) {
      const rel = mapRelationship(s, report);
      return rel ? { namedType: target, elementRelationship: rel } : { namedType: target };
    }
  }
  return visit(s, preserve, `inlined in ${name}`, errors);
}

function mapRelationship(s: OpenAPISchemaObject, report: (m: string) => void): 'atomic' | 'separable' | '' {
  const v = s['x-kubernetes-map-type'];
  if (v === undefined) return '';
  if (v === 'atomic') return 'atomic';
  if (v === 'granular') return 'separable';
  report(`unknown map type ${String(v)}`);
  return '';
}

const DEDUCED: TypeRef = Object.freeze({ namedType: UNTYPED_DEDUCED });
const UNTYPED: TypeRef = Object.freeze({ namedType: UNTYPED_ATOMIC });

function parseObject(s: OpenAPISchemaObject, preserve: boolean, name: string, report: (m: string) => void, errors: string[]): MapType {
  const fields: StructField[] = [];
  for (const [field, member] of Object.entries(s.properties ?? {})) {
    const f: StructField = { name: field, type: makeRef(member, preserve, name, report, errors) };
    if (member.default !== undefined) f.default = member.default;
    fields.push(f);
  }
  const ap = s.additionalProperties;
  let elementType: TypeRef | undefined;
  if (ap === undefined) elementType = preserve || fields.length === 0 ? DEDUCED : undefined;
  else if (typeof ap === 'object') elementType = makeRef(ap, preserve, name, report, errors);
  else elementType = ap ? DEDUCED : undefined;
  const out: MapType = { fields };
  if (elementType) out.elementType = elementType;
  const rel = mapRelationship(s, report);
  if (rel) out.elementRelationship = rel;
  return out;
}

function listRelationship(s: OpenAPISchemaObject, report: (m: string) => void): { rel: ElementRelationship; keys?: string[] } {
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined) {
    switch (listType) {
      case 'atomic':
        return { rel: 'atomic' };
      case 'set':
        return { rel: 'associative' };
      case 'map': {
        const keys = s['x-kubernetes-list-map-keys'];
        if (keys === undefined) {
          report('missing map keys');
          return { rel: 'associative' };
        }
        if (!Array.isArray(keys)) {
          report(`uninterpreted map keys: ${JSON.stringify(keys)}`);
          return { rel: 'associative' };
        }
        return { rel: 'associative', keys: keys.filter((k): k is string => typeof k === 'string') };
      }
      default:
        report(`unknown list type ${String(listType)}`);
        return { rel: 'atomic' };
    }
  }
  const strategy = s['x-kubernetes-patch-strategy'];
  if (strategy !== undefined) {
    switch (strategy) {
      case 'merge':
      case 'merge,retainKeys': {
        const key = s['x-kubernetes-patch-merge-key'];
        if (key === undefined) return { rel: 'associative' }; // a set
        if (typeof key !== 'string') {
          report(`uninterpreted merge key: ${JSON.stringify(key)}`);
          return { rel: 'associative' };
        }
        return { rel: 'associative', keys: [key] };
      }
      case 'retainKeys':
        return { rel: 'atomic' };
      default:
        report(`unknown patch strategy ${String(strategy)}`);
        return { rel: 'atomic' };
    }
  }
  return { rel: 'atomic' };
}

function parseList(s: OpenAPISchemaObject, preserve: boolean, name: string, report: (m: string) => void, errors: string[]): ListType {
  const { rel, keys } = listRelationship(s, report);
  let elementType: TypeRef;
  if (s.items !== undefined) {
    if (Array.isArray(s.items)) {
      report('structural schema arrays must have exactly one member subtype');
      elementType = DEDUCED;
    } else elementType = makeRef(s.items as OpenAPISchemaObject, preserve, name, report, errors);
  } else {
    if (s.type) report('`items` must be specified on arrays');
    elementType = UNTYPED;
  }
  const out: ListType = { elementType, elementRelationship: rel };
  if (keys) out.keys = keys;
  return out;
}

/** A copy of `s` where every embedded resource has apiVersion, kind and metadata properties (kube's addEmbeddedProperties). */
function withEmbeddedProperties(s: OpenAPISchemaObject, meta: OpenAPISchemaObject): OpenAPISchemaObject {
  let out = s;
  const edit = (): OpenAPISchemaObject => {
    if (out === s) out = { ...s };
    return out;
  };
  if (s.properties) {
    const props: Record<string, OpenAPISchemaObject> = {};
    let changed = false;
    for (const [k, v] of Object.entries(s.properties)) {
      props[k] = withEmbeddedProperties(v, meta);
      if (props[k] !== v) changed = true;
    }
    if (changed) edit().properties = props;
  }
  if (s.items && !Array.isArray(s.items)) {
    const items = withEmbeddedProperties(s.items as OpenAPISchemaObject, meta);
    if (items !== s.items) edit().items = items;
  }
  if (typeof s.additionalProperties === 'object') {
    const ap = withEmbeddedProperties(s.additionalProperties, meta);
    if (ap !== s.additionalProperties) edit().additionalProperties = ap;
  }
  if (s['x-kubernetes-embedded-resource'] === true) {
    edit().properties = { ...out.properties, apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: meta };
  }
  return out;
}

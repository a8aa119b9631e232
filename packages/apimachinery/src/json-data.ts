import { newBadRequest } from './status-error.ts';

/**
 * JSON values as data. Two things make a decoded JSON object differ from a plain JS record:
 *
 * - Keys are data. JSON.parse gives `{"__proto__": 1}` an own property "__proto__", but `obj[k] = v` and
 *   Object.assign on a `{}` run the inherited `__proto__` setter (the key vanishes, or the prototype changes), and
 *   `table[k]` / `k in table` find inherited members such as "constructor" or "toString". Every copier and merger
 *   writes through `setOwn`, and every lookup of a key taken from a body goes through `getOwn`.
 * - Depth. kube-apiserver's JSON decoder refuses nesting deeper than 10,000 levels; V8's own recursive walks
 *   (structuredClone, JSON.stringify, any recursive function) run out of stack far earlier (structuredClone near
 *   1,600 levels on Node's default stack). The walks here use explicit stacks, so any depth the decoder lets in is
 *   safe, and `checkJsonDepth` refuses the rest with kube's 400.
 */

export type JsonObject = Record<string, unknown>;

/** kube-apiserver's limit on nesting (encoding/json's maxNestingDepth, which sigs.k8s.io/json keeps). */
export const MAX_JSON_DEPTH = 10000;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sets an own, enumerable property even for "__proto__", so a key from JSON stays data and never swaps a prototype. */
export function setOwn(obj: object, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else (obj as JsonObject)[key] = value;
}

/** The value of an own property, never an inherited one ("constructor", "toString", "__proto__" of a `{}`). */
export function getOwn<V>(obj: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * A deep copy of a JSON value (objects, arrays, strings, numbers, booleans, null) at any depth: own enumerable keys
 * only, "__proto__" kept as data, undefined members kept as JSON.stringify would drop them later. Other values
 * (Dates, Maps, …) are not JSON and are copied by reference.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return copyShallowLevels(value, 0) as T;
  // The root is copied whatever its prototype (its own keys); below it, only plain objects and arrays are.
  const out = {};
  for (const k of Object.keys(value)) setOwn(out, k, copyShallowLevels((value as JsonObject)[k], 1));
  return out as T;
}

/** Levels copied by recursion (no worklist, no pair per object); deeper ones through an explicit stack. */
const COPY_RECURSION_DEPTH = 100;

function copyShallowLevels(v: unknown, depth: number): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (depth >= COPY_RECURSION_DEPTH) return copyChildDeep(v);
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyShallowLevels(v[i], depth + 1);
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out = {};
  const src = v as JsonObject;
  // for…in lists enumerable keys, inherited ones too: a plain object may still inherit from a polluted prototype.
  for (const k in src) if (Object.hasOwn(src, k)) setOwn(out, k, copyShallowLevels(src[k], depth + 1));
  return out;
}

/** copyChild for a value below the recursion bound: the whole subtree through the explicit stack. */
function copyChildDeep(v: unknown): unknown {
  const work: [unknown, unknown][] = [];
  const copy = copyChild(v, work);
  return work.length === 0 ? copy : fillCopies(copy, work);
}

function fillCopies(root: unknown, work: [unknown, unknown][]): unknown {
  for (let item = work.pop(); item; item = work.pop()) {
    const [src, dst] = item;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out[i] = copyChild(src[i], work);
    } else {
      for (const k of Object.keys(src as JsonObject)) setOwn(dst as object, k, copyChild((src as JsonObject)[k], work));
    }
  }
  return root;
}

function copyChild(v: unknown, work: [unknown, unknown][]): unknown {
  if (typeof v !== 'object' || v === null) return v;
  let copy: unknown;
  if (Array.isArray(v)) copy = new Array(v.length);
  else if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) copy = {};
  else return v;
  work.push([v, copy]);
  return copy;
}

/** Whether `value` nests objects and arrays deeper than `max` levels (a scalar is depth 0, `{}` depth 1). */
export function exceedsJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, depth] = item;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as JsonObject);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, depth + 1]);
  }
  return false;
}

/** The message of encoding/json's SyntaxError for nesting beyond its limit, as kube-apiserver passes it on. */
export const MAX_DEPTH_MESSAGE = 'exceeded max depth';

/** Throws kube's 400 when `value` (a body decoded by something other than the JSON decoder, e.g. YAML or a patch) nests too deep. */
export function checkJsonDepth(value: unknown, what = 'the request body'): void {
  if (exceedsJsonDepth(value)) throw newBadRequest(`${what} nests deeper than ${MAX_JSON_DEPTH} levels: ${MAX_DEPTH_MESSAGE}`);
}

/**
 * JSON.stringify, whose recursion gives up near 4,500 levels on Node's default stack: a value nested deeper (at
 * most MAX_JSON_DEPTH once decoded) is encoded by an explicit-stack encoder with the same output instead.
 * `toJSON` methods and replacers are not supported on that path; values here are plain JSON.
 */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return stringifyDeep(value);
  }
}

/** JSON.stringify's own rules, for values too deep for it (toJSON methods aside). */
const JSON_TEXT: JsonRendering = {
  scalar: (v) => JSON.stringify(v) ?? 'null',
  keys: (o) => Object.keys(o).filter((k) => encodable(o[k])),
  key: (k) => `${JSON.stringify(k)}:`,
  item: (v) => (encodable(v) ? v : null),
  array: ['[', ',', ']'],
  object: ['{', ',', '}'],
};

const encodable = (v: unknown): boolean => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

function stringifyDeep(value: unknown): string {
  return encodable(value) ? renderJson(value, JSON_TEXT) : (undefined as unknown as string);
}

/**
 * How renderJson writes a JSON value: JSON itself with sorted keys, or the texts Go prints for a decoded value
 * (`%v`, `%#v`), which kube's messages carry.
 */
export interface JsonRendering {
  /** The text of anything that is not an object or array (null and undefined included). */
  scalar(v: unknown): string;
  /** The keys of an object to write, in order (default: Object.keys). */
  keys?(o: JsonObject): string[];
  /** The text before a member's value, e.g. `"name":`. */
  key(k: string): string;
  /** Replaces an array item before it is written (default: as it is). */
  item?(v: unknown): unknown;
  /** Opening text, separator and closing text. */
  array: readonly [open: string, separator: string, close: string];
  object: readonly [open: string, separator: string, close: string];
}

type RenderFrame = { src: unknown[] | JsonObject; keys: string[] | null; i: number };

/** Writes a JSON value as `how` says, at any depth (an explicit stack, where a recursive printer would overflow). */
export function renderJson(value: unknown, how: JsonRendering): string {
  const parts: string[] = [];
  const stack: RenderFrame[] = [];
  const write = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) {
      parts.push(how.scalar(v));
    } else if (Array.isArray(v)) {
      parts.push(how.array[0]);
      stack.push({ src: v, keys: null, i: 0 });
    } else {
      parts.push(how.object[0]);
      stack.push({ src: v as JsonObject, keys: how.keys ? how.keys(v as JsonObject) : Object.keys(v), i: 0 });
    }
  };
  write(value);
  while (stack.length) {
    const f = stack[stack.length - 1] as RenderFrame;
    const [, separator, close] = f.keys === null ? how.array : how.object;
    const n = f.keys === null ? (f.src as unknown[]).length : f.keys.length;
    if (f.i >= n) {
      parts.push(close);
      stack.pop();
      continue;
    }
    if (f.i > 0) parts.push(separator);
    const i = f.i++;
    if (f.keys === null) {
      const item = (f.src as unknown[])[i];
      write(how.item ? how.item(item) : item);
    } else {
      const k = f.keys[i] as string;
      parts.push(how.key(k));
      write((f.src as JsonObject)[k]);
    }
  }
  return parts.join('');
}

/**
 * Nearly every value is shallow and recursion is the fastest walk, yet an accepted value may nest 10,000 levels: walks
 * recurse at most this many levels and hand anything deeper to an explicit worklist.
 */
const RECURSION_DEPTH = 500;

/** Deep equality of JSON values at any depth (own keys only; key order does not matter; undefined members count as absent). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const deeper: unknown[] = [];
  if (!equalTo(a, b, 0, deeper)) return false;
  while (deeper.length) {
    const y = deeper.pop();
    if (!equalTo(deeper.pop(), y, 0, deeper)) return false;
  }
  return true;
}

/** Compares `a` and `b` to RECURSION_DEPTH levels below `depth`; pairs further down go to `deeper` (two entries each). */
function equalTo(a: unknown, b: unknown, depth: number, deeper: unknown[]): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (depth === RECURSION_DEPTH) {
    deeper.push(a, b);
    return true;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalTo(a[i], b[i], depth + 1, deeper)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  let count = 0;
  // for…in with an own-key check, not Object.keys: no array of keys per object (this runs on every write, over both
  // versions of the object), and a polluted Object.prototype still adds no key.
  for (const k in ao) {
    if (!Object.hasOwn(ao, k) || ao[k] === undefined) continue;
    count++;
    if (!Object.hasOwn(bo, k) || !equalTo(ao[k], bo[k], depth + 1, deeper)) return false;
  }
  for (const k in bo) if (Object.hasOwn(bo, k) && bo[k] !== undefined) count--;
  return count === 0;
}

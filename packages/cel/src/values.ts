import { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { type CelType, objectRuntime } from './cel-type.ts';
import { listSemantics, typedListEquals, withListSemantics } from './typed-lists.ts';

/** The base of the classes object types' values are made of (one class per ObjectType: see objectRuntime). */
export class CelObject {}

interface OptionalClass {
  of(value: unknown): unknown;
}

let optionalNone: unknown;

/** CEL's optional.none(); the library does not export its Optional class, so it is taken from a value. */
function noneValue(): { constructor: OptionalClass } {
  optionalNone ??= new Environment({ enableOptionalTypes: true }).evaluate('optional.none()');
  return optionalNone as { constructor: OptionalClass };
}

/**
 * Turns a JSON-shaped activation value into CEL values as the declared type asks: integers become
 * bigint (CEL's int is 64-bit), `uint` becomes UnsignedInt, `double` stays a number, an ObjectType's value an
 * instance of its class with its declared fields only, RFC 3339 strings timestamps, Go duration strings durations,
 * base64 strings bytes, and an optional type's absent value `optional.none()`. Under `dyn` an integral number is
 * an int, as kube reads integers of unstructured JSON; a schema-derived type says which numbers are doubles.
 */
export function toCel(value: unknown, type: CelType = 'dyn'): unknown {
  if (type === 'dyn') return dynToCel(value);
  if (typeof type !== 'string' && type.kind === 'optional') {
    const none = noneValue();
    return value === undefined ? none : none.constructor.of(toCel(value, type.value));
  }
  if (value === null || value === undefined) return null;
  if (typeof type !== 'string') {
    switch (type.kind) {
      case 'object': {
        if (!isPlainObject(value)) return value;
        const runtime = objectRuntime(type);
        const out = new runtime.ctor() as unknown as Record<string, unknown>;
        for (const [json, name, field] of runtime.fields) {
          if (Object.hasOwn(value, json) && value[json] !== undefined) out[name] = toCel(value[json], field);
        }
        return out;
      }
      case 'list':
        return Array.isArray(value)
          ? withListSemantics(
              value.map((item) => toCel(item, type.elem)),
              type.listType,
              type.mapKeys,
            )
          : value;
      case 'map': {
        if (!isPlainObject(value)) return value;
        const out: Record<string, unknown> = {};
        for (const key in value) out[key] = toCel(value[key], type.value);
        return out;
      }
    }
  }
  switch (type) {
    case 'int':
      return isInt64(value) ? BigInt(value) : value;
    case 'uint':
      return (typeof value === 'number' && Number.isInteger(value) && value >= 0) || (typeof value === 'bigint' && value >= 0n)
        ? new UnsignedInt(value)
        : value;
    case 'double':
      return typeof value === 'bigint' ? Number(value) : value;
    case 'google.protobuf.Timestamp':
      return typeof value === 'string' ? timestamp(value) : value;
    case 'google.protobuf.Duration':
      return typeof value === 'string' ? (goDuration(value) ?? value) : value;
    case 'bytes':
      return typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : value;
  }
  const list = /^list<(.+)>$/.exec(type);
  if (list && Array.isArray(value)) return value.map((item) => toCel(item, list[1]));
  const map = /^map<[^,]+,\s*(.+)>$/.exec(type);
  if (map && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key in value) out[key] = toCel(value[key], map[1]);
    return out;
  }
  return dynToCel(value);
}

/** A `date` (2006-01-02, midnight UTC) or `date-time` (RFC 3339) string as a timestamp; the string itself when it is neither. */
function timestamp(s: string): unknown {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
  return Number.isNaN(ms) ? s : new Date(ms);
}

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's time.ParseDuration (`1h30m`, `-1.5s`, `300ms`) as a CEL duration, or undefined when it does not parse. */
function goDuration(s: string): Duration | undefined {
  const m = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(s);
  if (!m) return undefined;
  let nanos = 0n;
  for (const [, num, unit] of (m[2] as string).matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    const scale = DURATION_UNITS[unit as string] as bigint;
    const [whole = '0', frac = ''] = (num as string).split('.');
    nanos += BigInt(whole || '0') * scale;
    if (frac) nanos += (BigInt(frac) * scale) / 10n ** BigInt(frac.length);
  }
  if (m[1] === '-') nanos = -nanos;
  return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}

/** By shape: integral numbers are ints, arrays lists, plain objects maps. The hot path of every evaluation. */
function dynToCel(value: unknown): unknown {
  switch (typeof value) {
    case 'number':
      return isInt64(value) ? BigInt(value) : value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) out[i] = dynToCel(value[i]);
        return out;
      }
      if (!isPlainObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const key in value) out[key] = dynToCel(value[key]);
      return out;
    }
    case 'undefined':
      return null;
    default:
      return value;
  }
}

/** An integral number within int64 (a larger one stays a double rather than become an invalid int). */
function isInt64(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

interface Equatable {
  equals(other: unknown): boolean;
}

/** CEL equality (`==`): numbers compare across int, uint and double; lists and maps deeply. */
export function celEquals(a: unknown, b: unknown): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return compareNumeric(x, y) === 0;
  if (x !== undefined || y !== undefined) return false;
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((v, i) => v === b[i]);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return a.seconds === b.seconds && a.nanos === b.nanos;
  // objects of a declared type equal only objects of that type, field by field
  if ((a instanceof CelObject || b instanceof CelObject) && a.constructor !== b.constructor) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    const kind = listSemantics(a);
    if (kind) return typedListEquals(a, kind, b, celEquals);
    return a.length === b.length && a.every((v, i) => celEquals(v, b[i]));
  }
  if (typeof (a as Partial<Equatable>).equals === 'function' && Object.getPrototypeOf(a) === Object.getPrototypeOf(b)) {
    return (a as Equatable).equals(b);
  }
  const ea = entries(a);
  const eb = entries(b);
  if (!ea || !eb || ea.size !== eb.size) return false;
  for (const [k, v] of ea) {
    if (!eb.has(k) || !celEquals(v, eb.get(k))) return false;
  }
  return true;
}

function entries(v: unknown): Map<unknown, unknown> | undefined {
  if (v instanceof Map) return v;
  if (isPlainObject(v) || v instanceof CelObject) return new Map(Object.entries(v));
  return undefined;
}

type Numeric = bigint | number;

function numeric(v: unknown): Numeric | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.value;
  return undefined;
}

/** -1, 0 or 1; NaN when a NaN makes the pair unordered. */
function compareNumeric(a: Numeric, b: Numeric): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b ? 0 : a < b ? -1 : 1;
  // mixed int/double: compare exactly (a double may exceed 2^53, an int may not fit a double)
  const fa = Number(a);
  const fb = Number(b);
  if (Number.isNaN(fa) || Number.isNaN(fb)) return Number.NaN;
  if (fa !== fb) return fa < fb ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'bigint') return Number.isInteger(a) ? -compareBig(b, BigInt(a)) : 0;
  if (typeof a === 'bigint' && typeof b === 'number') return Number.isInteger(b) ? compareBig(a, BigInt(b)) : 0;
  return 0;
}

function compareBig(a: bigint, b: bigint): -1 | 0 | 1 {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** CEL ordering (`<`) of two values of one comparable type; strings by code point, as Go compares UTF-8. */
export function celCompare(a: unknown, b: unknown): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return compareNumeric(x, y);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime()) as -1 | 0 | 1;
  if (a instanceof Duration && b instanceof Duration) {
    return a.seconds !== b.seconds ? compareBig(a.seconds, b.seconds) : (Math.sign(a.nanos - b.nanos) as -1 | 0 | 1);
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? -1 : 1;
    }
    return Math.sign(a.length - b.length) as -1 | 0 | 1;
  }
  throw new TypeError(`no such overload: cannot compare ${typeof a} and ${typeof b}`);
}

function compareStrings(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  while (true) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done && cb.done ? 0 : ca.done ? -1 : 1;
    const pa = ca.value.codePointAt(0) as number;
    const pb = cb.value.codePointAt(0) as number;
    if (pa !== pb) return pa < pb ? -1 : 1;
  }
}

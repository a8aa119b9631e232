import { goNumber } from '../go-format.ts';
import { type JsonRendering, renderJson } from '../json-data.ts';
import { goQuote } from '../labels.ts';

/**
 * One step of a field path, as structured-merge-diff's PathElement: a struct or map field by name, an item of an
 * associative (map-type) list by its key fields, an item of a set-type list by its value, or an item of an atomic
 * list by its index. Values are plain decoded JSON.
 */
export type PathElement =
  | { readonly fieldName: string }
  | { readonly key: Readonly<Record<string, unknown>> }
  | { readonly value: unknown }
  | { readonly index: number };

/** The PathElement naming field `name`. */
export const fieldElement = (fieldName: string): PathElement => ({ fieldName });
/** The PathElement of a map-list item whose key fields have these values. */
export const keyElement = (key: Readonly<Record<string, unknown>>): PathElement => ({ key });
/** The PathElement of a set-list item. */
export const valueElement = (value: unknown): PathElement => ({ value });
/** The PathElement of an atomic-list item. */
export const indexElement = (index: number): PathElement => ({ index });

/** Which of the four kinds a PathElement is, numbered in SMD's order: field < key < value < index. */
export const ElementKind = { Field: 0, Key: 1, Value: 2, Index: 3 } as const;
export type ElementKind = (typeof ElementKind)[keyof typeof ElementKind];

export function elementKind(pe: PathElement): ElementKind {
  if ('fieldName' in pe) return ElementKind.Field;
  if ('key' in pe) return ElementKind.Key;
  if ('value' in pe) return ElementKind.Value;
  return ElementKind.Index;
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const cmpNum = (a: number, b: number): number => (a < b ? -1 : a > b ? 1 : 0);

/** SMD's kinds of value, in the order value.Compare puts them (numbers compare with each other numerically). */
function valueRank(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return 0;
    case 'string':
      return 1;
    case 'boolean':
      return 2;
    case 'object':
      return v === null ? 5 : Array.isArray(v) ? 3 : 4;
    default:
      return 5; // undefined reads as null
  }
}

/** value.Compare of two JSON values: numbers < strings < booleans < lists < maps < null, each ordered within. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb < 0 ? -1 : 1;
  switch (ra) {
    case 0:
      return cmpNum(a as number, b as number);
    case 1:
      return cmpStr(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      const n = Math.min(la.length, lb.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
      return cmpNum(la.length, lb.length);
    }
    case 4:
      return compareMaps(a as Record<string, unknown>, b as Record<string, unknown>);
    default:
      return 0;
  }
}

/** value.MapCompare: keys zipped in lexical order; at the first key only one side has, that side is the lesser. */
function compareMaps(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): number {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  let i = 0;
  let j = 0;
  while (i < ka.length && j < kb.length) {
    const x = ka[i] as string;
    const y = kb[j] as string;
    if (x < y) return -1; // b lacks x
    if (x > y) return 1; // a lacks y
    const c = compareValues(a[x], b[y]);
    if (c !== 0) return c;
    i++;
    j++;
  }
  return cmpNum(ka.length, kb.length);
}

/** FieldList.Compare of two keys: fields by sorted name, then value, a shorter list first. */
function compareKeys(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): number {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const x = ka[i] as string;
    const y = kb[i] as string;
    if (x !== y) return cmpStr(x, y);
    const c = compareValues(a[x], b[y]);
    if (c !== 0) return c;
  }
  return cmpNum(ka.length, kb.length);
}

/** SMD's PathElement.Compare: by kind (field < key < value < index), then within the kind. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ka = elementKind(a);
  const kb = elementKind(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  switch (ka) {
    case ElementKind.Field:
      return cmpStr((a as { fieldName: string }).fieldName, (b as { fieldName: string }).fieldName);
    case ElementKind.Key:
      return compareKeys((a as { key: Record<string, unknown> }).key, (b as { key: Record<string, unknown> }).key);
    case ElementKind.Value:
      return compareValues((a as { value: unknown }).value, (b as { value: unknown }).value);
    default:
      return cmpNum((a as { index: number }).index, (b as { index: number }).index);
  }
}

/** Whether two PathElements select the same child. */
export const pathElementsEqual = (a: PathElement, b: PathElement): boolean => comparePathElements(a, b) === 0;

// ---- human-readable text (conflict messages) ----

/** value.ToString: how SMD prints a value inside a path (`"a"`, `80`, `true`, `[1,2]`, `null`). */
export function valueString(v: unknown): string {
  switch (valueRank(v)) {
    case 0:
      return goNumber(v as number);
    case 1:
      return goQuote(v as string);
    case 2:
      return v ? 'true' : 'false';
    case 3:
      return `[${(v as unknown[]).map(valueString).join(',')}]`;
    case 4: {
      const o = v as Record<string, unknown>;
      return Object.keys(o)
        .sort()
        .map((k) => `${k}=${valueString(o[k])}`)
        .join('');
    }
    default:
      return 'null';
  }
}

/** PathElement.String: `.name`, `[port=80,protocol="TCP"]`, `[="a"]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  switch (elementKind(pe)) {
    case ElementKind.Field:
      return `.${(pe as { fieldName: string }).fieldName}`;
    case ElementKind.Key: {
      const key = (pe as { key: Record<string, unknown> }).key;
      return `[${Object.keys(key)
        .sort()
        .map((k) => `${k}=${valueString(key[k])}`)
        .join(',')}]`;
    }
    case ElementKind.Value:
      return `[=${valueString((pe as { value: unknown }).value)}]`;
    default:
      return `[${(pe as { index: number }).index}]`;
  }
}

// ---- FieldsV1 keys ----

const HTML_CHARS = /[<>&\u2028\u2029]/;
const HTML_CHARS_G = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON as Go's encoding/json writes a decoded value: object keys sorted, and <, >, & and U+2028/9 escaped in
 * strings (JSON.stringify's numbers are already Go's).
 */
function goJson(v: unknown): string {
  // Key fields and set items are nearly always scalars: skip renderJson's setup for them (FieldsV1 keys are per request).
  return typeof v === 'object' && v !== null ? renderJson(v, GO_JSON) : GO_JSON.scalar(v);
}

// renderJson walks with an explicit stack: a set item's value may nest as deep as the decoder allows.
const GO_JSON: JsonRendering = {
  scalar: (v) => {
    switch (typeof v) {
      case 'string':
        return goJsonString(v);
      case 'number':
        return Number.isFinite(v) ? String(v) : 'null';
      case 'boolean':
        return v ? 'true' : 'false';
      default:
        return 'null';
    }
  },
  keys: (o) => Object.keys(o).sort(),
  key: (k) => `${goJsonString(k)}:`,
  array: ['[', ',', ']'],
  object: ['{', ',', '}'],
};

function goJsonString(v: string): string {
  const s = JSON.stringify(v);
  return HTML_CHARS.test(s) ? s.replace(HTML_CHARS_G, (c) => HTML_ESCAPES[c] as string) : s;
}

/**
 * The FieldsV1 key of a PathElement (SMD's SerializePathElement): `f:name`, `k:{"name":"a","port":80}` with the
 * key fields sorted by name, `v:"x"`, `i:0`.
 */
export function serializePathElement(pe: PathElement): string {
  switch (elementKind(pe)) {
    case ElementKind.Field:
      return `f:${(pe as { fieldName: string }).fieldName}`;
    case ElementKind.Key: {
      const key = (pe as { key: Record<string, unknown> }).key;
      const names = Object.keys(key);
      if (names.length > 1) names.sort();
      let out = 'k:{';
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string;
        out += `${i > 0 ? ',' : ''}${goJsonString(name)}:${goJson(key[name])}`;
      }
      return `${out}}`;
    }
    case ElementKind.Value:
      return `v:${goJson((pe as { value: unknown }).value)}`;
    default:
      return `i:${(pe as { index: number }).index}`;
  }
}

/** A FieldsV1 key of a kind this version does not know; FieldsV1 decoding drops such entries, as SMD does. */
export class UnknownPathElementTypeError extends Error {
  constructor() {
    super('unknown path element type');
    this.name = 'UnknownPathElementTypeError';
  }
}

/** strconv.Atoi: optional sign, decimal digits. */
function atoi(s: string): number {
  if (/^[+-]?\d+$/.test(s)) {
    const n = Number(s);
    if (Number.isSafeInteger(n)) return n;
    throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  }
  throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
}

/** The JSON after the `x:` prefix; SMD reads exactly one value and rejects trailing data. */
function parseJsonPart(s: string, what: string): unknown {
  try {
    return JSON.parse(s);
  } catch (err) {
    throw new Error(`managedFields parsing: invalid ${what} ${JSON.stringify(s)}: ${(err as Error).message}`);
  }
}

/** Decodes a FieldsV1 key (SMD's DeserializePathElement); throws on a malformed key. */
export function parsePathElement(s: string): PathElement {
  if (s.length < 2) throw new Error('key must be 2 characters long:');
  if (s.charCodeAt(1) !== 0x3a /* : */) throw new Error(`missing colon: ${s}`);
  switch (s.charCodeAt(0)) {
    case 0x66 /* f */:
      return { fieldName: s.slice(2) };
    case 0x76 /* v */:
      return { value: parseJsonPart(s.slice(2), 'value') };
    case 0x6b /* k */:
      {
        const v = parseJsonPart(s.slice(2), 'key');
        if (typeof v !== 'object' || v === null || Array.isArray(v)) {
          throw new Error(`managedFields parsing: key ${JSON.stringify(s.slice(2))} is not a JSON object`);
        }
        // Rebuilt with sorted names so the key prints and iterates as SMD's sorted FieldList.
        const src = v as Record<string, unknown>;
        const key: Record<string, unknown> = {};
        for (const name of Object.keys(src).sort())
          Object.defineProperty(key, name, { value: src[name], enumerable: true, writable: true, configurable: true });
        return { key };
      }
    case 0x69 /* i */:
      return { index: atoi(s.slice(2)) };
    default:
      throw new UnknownPathElementTypeError();
  }
}

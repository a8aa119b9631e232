import { newBadRequest } from './status-error.ts';

/**
 * Field selectors (k8s.io/apimachinery/pkg/fields): `field=value`, `field==value`, `field!=value` joined by
 * commas, values escaping `\`, `,` and `=` with a backslash. Which fields exist is the registry's business.
 */

export type Fields = Readonly<Record<string, string>>;
export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  field: string;
  /** '=' or '!='; a parsed '==' is reported as '=' as Kubernetes' Requirements() does. */
  operator: FieldOperator;
  value: string;
}

export interface FieldSelector {
  /** In Kubernetes' order: the raw terms sorted. */
  readonly requirements: readonly FieldRequirement[];
  /** A field missing from `fields` compares as the empty string, as fields.Set.Get does. */
  matches(fields: Fields): boolean;
  empty(): boolean;
  /** The terms joined by ',', values escaped. */
  toString(): string;
  /** The value `field` must equal, if an `=` term demands one. */
  requiresExactMatch(field: string): string | undefined;
}

/** fields.EscapeValue. */
function escapeValue(v: string): string {
  return v.replace(/[\\,=]/g, '\\$&');
}

/**
 * fields.UnescapeValue: `\\`, `\,` and `\=` are the only escapes; a bare `,` or `=` in a value is an error.
 * Go prints the offending rune with %v, i.e. as its number.
 */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw newBadRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      throw newBadRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw newBadRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas not escaped by a backslash; escapes stay in the terms. */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inSlash) inSlash = false;
    else if (c === 0x5c) inSlash = true;
    else if (c === 0x2c) {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

/** The first operator occurrence splits the term; field names have no escaping. */
function splitTerm(term: string): { field: string; op: FieldOperator; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Go's string order (UTF-8 bytes, i.e. code points), which differs from UTF-16 order above the BMP. */
function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above every BMP character.
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}

class CompiledFieldSelector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly #fields: readonly string[];
  readonly #values: readonly string[];
  readonly #negate: readonly boolean[];
  #text: string | undefined;

  constructor(reqs: FieldRequirement[]) {
    for (const r of reqs) Object.freeze(r);
    this.requirements = Object.freeze(reqs);
    this.#fields = reqs.map((r) => r.field);
    this.#values = reqs.map((r) => r.value);
    this.#negate = reqs.map((r) => r.operator === '!=');
  }

  matches(fields: Fields): boolean {
    const n = this.#fields.length;
    for (let i = 0; i < n; i++) {
      const got = fields[this.#fields[i] as string];
      // Missing compares as "", and only own string values count (not e.g. an inherited `constructor`).
      const v = typeof got === 'string' ? got : '';
      if ((v === this.#values[i]) === this.#negate[i]) return false;
    }
    return true;
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  toString(): string {
    this.#text ??= this.requirements.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeValue(r.value)}`).join(',');
    return this.#text;
  }

  requiresExactMatch(field: string): string | undefined {
    for (const r of this.requirements) if (r.field === field && r.operator !== '!=') return r.value;
    return undefined;
  }
}

/** Matches every object. */
export const everythingFields: FieldSelector = Object.freeze(new CompiledFieldSelector([]));

/**
 * fields.ParseSelector. Terms are sorted as raw text first (so errors and toString() follow that order);
 * a term with neither field nor value ("=") selects everything. Throws a 400 StatusError.
 */
export function parseFieldSelector(s: string): FieldSelector {
  if (s === '') return everythingFields;
  const parts = splitTerms(s).sort(compareGoStrings);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw newBadRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    const value = unescapeValue(t.rhs);
    // Kubernetes' identity transform drops terms whose field and value are both empty.
    if (t.field === '' && value === '') continue;
    reqs.push({ field: t.field, operator: t.op === '!=' ? '!=' : '=', value });
  }
  return reqs.length ? new CompiledFieldSelector(reqs) : everythingFields;
}

/** `field=value` for every entry, ordered by field; {} is everything. */
export function fieldSelectorFromSet(set: Fields): FieldSelector {
  const keys = Object.keys(set).sort(compareGoStrings);
  if (keys.length === 0) return everythingFields;
  return new CompiledFieldSelector(keys.map((k) => ({ field: k, operator: '=', value: set[k] as string })));
}

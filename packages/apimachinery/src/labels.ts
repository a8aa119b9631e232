import { isQualifiedName, isValidLabelValue } from './names.ts';
import { newBadRequest } from './status-error.ts';

/**
 * Label selectors (k8s.io/apimachinery/pkg/labels): the `labelSelector` query parameter's grammar, parsed
 * once into requirements sorted by key and compiled into small matcher functions. Errors are 400s carrying
 * Kubernetes' own messages.
 */

export type Labels = Readonly<Record<string, string>>;

/** selection.Operator values as Kubernetes spells them. */
export type LabelOperator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export interface LabelSelector {
  /** Sorted by key (stable), as Kubernetes' parser leaves them. */
  readonly requirements: readonly LabelRequirement[];
  /** True when every requirement holds; `undefined` labels count as no labels. */
  matches(labels: Labels | undefined): boolean;
  /** True when the selector does not restrict anything. */
  empty(): boolean;
  /** Canonical form: requirements by key, set values sorted. */
  toString(): string;
  /** The single value `key` must have (`=`, `==`, or `in` with one value), if the selector demands one. */
  requiresExactMatch(key: string): string | undefined;
}

/** metav1.LabelSelector as it appears in object specs. */
export interface MetaV1LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

// ---- Go-compatible rendering of values inside error messages ----

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const ASCII_ESCAPES: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

/** Go's %q (strconv.Quote), so invalid values print as kube-apiserver prints them. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp === 0x22) out += '\\"';
    else if (cp === 0x5c) out += '\\\\';
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp < 0x80) out += ASCII_ESCAPES[cp] ?? `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0xd800 && cp <= 0xdfff)
      out += '\ufffd'; // a lone surrogate never survives UTF-8 decoding
    else if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Go's %#v of a []string; the values NewRequirement sees for an empty set are a nil slice. */
function goStringSlice(values: readonly string[]): string {
  return values.length === 0 ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
}

/** field.ErrorList.ToAggregate().Error(): duplicates dropped, several errors in brackets. */
function aggregate(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

const invalid = (field: string, shown: string, detail: string): string => `${field}: Invalid value: ${shown}: ${detail}`;

// ---- integers for gt / lt ----

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64): optional sign, decimal digits, int64 range; undefined when it would fail. */
function parseInt64(s: string): number | bigint | undefined {
  const n = s.length;
  let i = 0;
  const c0 = s.charCodeAt(0);
  if (c0 === 0x2b || c0 === 0x2d) i = 1;
  if (i >= n) return undefined;
  for (let j = i; j < n; j++) {
    const c = s.charCodeAt(j);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  // Up to 15 digits is exact as a double; longer needs BigInt for the range check and exact comparison.
  if (n - i <= 15) return Number(s);
  const b = BigInt(s);
  return b < INT64_MIN || b > INT64_MAX ? undefined : b;
}

// ---- requirements ----

/** labels.NewRequirement's checks; returns the aggregated message, or undefined when valid. */
function requirementError(key: string, op: LabelOperator, values: readonly string[]): string | undefined {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(invalid('key', goQuote(key), keyErrs.join('; ')));
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        errs.push(invalid('values', goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid('values', goStringSlice(values), 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        errs.push(invalid('values', goStringSlice(values), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        errs.push(invalid('values', goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          errs.push(invalid(`values[${i}]`, goQuote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(invalid(`values[${i}][${key}]`, goQuote(v), valueErrs.join('; ')));
  });
  return errs.length ? aggregate(errs) : undefined;
}

function freezeRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const r: LabelRequirement = { key, operator, values };
  Object.freeze(values);
  Object.freeze(r);
  return r;
}

/** Stable sort by key (Kubernetes sorts with sort.Sort, which is stable for the small inputs it sees). */
function sortByKey(reqs: LabelRequirement[]): LabelRequirement[] {
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const v = r.values.length === 1 ? (r.values[0] as string) : [...r.values].sort().join(',');
  switch (r.operator) {
    case 'in':
      return `${r.key} in (${v})`;
    case 'notin':
      return `${r.key} notin (${v})`;
    case 'gt':
      return `${r.key}>${v}`;
    case 'lt':
      return `${r.key}<${v}`;
    default:
      return `${r.key}${r.operator}${v}`;
  }
}

// ---- compiled matchers ----

type Test = (ls: Labels) => boolean;

/** One closure per requirement, specialised on its operator and value count. */
function compile(r: LabelRequirement): Test {
  const { key, values } = r;
  switch (r.operator) {
    case '=':
    case '==':
    case 'in': {
      // A stored label value is a string; anything else found under `key` (e.g. an inherited
      // `constructor`) is not a label and never equals a string.
      if (values.length === 1) {
        const want = values[0] as string;
        return (ls) => ls[key] === want;
      }
      const set = new Set(values);
      return (ls) => {
        const v = ls[key];
        return typeof v === 'string' && set.has(v);
      };
    }
    case '!=':
    case 'notin': {
      if (values.length === 1) {
        const unwanted = values[0] as string;
        return (ls) => ls[key] !== unwanted;
      }
      const set = new Set(values);
      return (ls) => {
        const v = ls[key];
        return typeof v !== 'string' || !set.has(v);
      };
    }
    case 'exists':
      return (ls) => typeof ls[key] === 'string';
    case '!':
      return (ls) => typeof ls[key] !== 'string';
    case 'gt':
    case 'lt': {
      const bound = parseInt64(values[0] ?? '');
      if (bound === undefined || values.length !== 1) return () => false;
      const greater = r.operator === 'gt';
      return (ls) => {
        const v = ls[key];
        if (typeof v !== 'string') return false;
        const n = parseInt64(v);
        if (n === undefined) return false;
        return greater ? n > bound : n < bound;
      };
    }
  }
}

const NO_LABELS: Labels = Object.freeze({});

class CompiledSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  readonly #tests: readonly Test[];
  #text: string | undefined;

  constructor(reqs: LabelRequirement[]) {
    this.requirements = Object.freeze(reqs);
    this.#tests = reqs.map(compile);
  }

  matches(labels: Labels | undefined): boolean {
    const ls = labels ?? NO_LABELS;
    for (const t of this.#tests) if (!t(ls)) return false;
    return true;
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  toString(): string {
    this.#text ??= this.requirements.map(requirementString).join(',');
    return this.#text;
  }

  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((q) => q.key === key);
    if (r && (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }
}

/** Matches every object. */
export const everythingLabels: LabelSelector = Object.freeze(new CompiledSelector([]));

/** labels.Nothing(): matches no object (what a nil metav1.LabelSelector means). */
const nothingLabels: LabelSelector = Object.freeze({
  requirements: Object.freeze([]),
  matches: () => false,
  empty: () => false,
  toString: () => '',
  requiresExactMatch: () => undefined,
});

// ---- the parser (labels.Parse) ----

type Tok = 'eos' | 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<';
interface Item {
  tok: Tok;
  lit: string;
}

const TOKENS: ReadonlyMap<string, Tok> = new Map<string, Tok>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isSpecial = (c: number): boolean => c === 0x3d || c === 0x21 || c === 0x28 || c === 0x29 || c === 0x2c || c === 0x3e || c === 0x3c;

const EOS: Item = Object.freeze({ tok: 'eos', lit: '' });

/**
 * Tokenises the whole selector up front, as Kubernetes' lexer does. Like Go's byte reader, a NUL reads as
 * "end": at the start of a token it ends the stream, inside one it ends the token.
 */
function lex(s: string): Item[] {
  const n = s.length;
  let pos = 0;
  const read = (): number => (pos < n ? s.charCodeAt(pos++) : 0);
  const items: Item[] = [];
  for (;;) {
    let c = read();
    while (isWhitespace(c)) c = read();
    if (c === 0) {
      items.push(EOS);
      return items;
    }
    if (isSpecial(c)) {
      // Longest run of symbols that still spells an operator ("!=", "=="); every single symbol is one.
      let buf = String.fromCharCode(c);
      let item: Item = { tok: TOKENS.get(buf) as Tok, lit: buf };
      for (;;) {
        const d = read();
        if (d === 0) break;
        if (!isSpecial(d)) {
          pos--;
          break;
        }
        buf += String.fromCharCode(d);
        const t = TOKENS.get(buf);
        if (t === undefined) {
          pos--;
          break;
        }
        item = { tok: t, lit: buf };
      }
      items.push(item);
      continue;
    }
    const start = pos - 1;
    let end: number;
    for (;;) {
      const at = pos;
      const d = read();
      if (d === 0) {
        end = at;
        break;
      }
      if (isSpecial(d) || isWhitespace(d)) {
        pos--;
        end = pos;
        break;
      }
    }
    const lit = s.slice(start, end);
    const kw = lit === 'in' || lit === 'notin' ? (lit as Tok) : 'id';
    items.push({ tok: kw, lit });
  }
}

class ParseError extends Error {}

/** Recursive descent over the token list, with Kubernetes' contexts and messages. */
class Parser {
  readonly #items: Item[];
  #p = 0;

  constructor(items: Item[]) {
    this.#items = items;
  }

  /** In a value position "in" and "notin" are plain identifiers ("x in (in)"). */
  static #kind(it: Item, values: boolean): Tok {
    return values && (it.tok === 'in' || it.tok === 'notin') ? 'id' : it.tok;
  }

  #lookahead(values: boolean): Item {
    const it = this.#items[this.#p] ?? EOS;
    return { tok: Parser.#kind(it, values), lit: it.lit };
  }

  #consume(values: boolean): Item {
    const it = this.#items[this.#p] ?? EOS;
    if (this.#p < this.#items.length - 1) this.#p++;
    return { tok: Parser.#kind(it, values), lit: it.lit };
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.#lookahead(true);
      if (tok === 'eos') return reqs;
      if (tok !== 'id' && tok !== '!') throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.#requirement());
      } catch (e) {
        if (e instanceof ParseError) throw new ParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const next = this.#consume(true);
      if (next.tok === 'eos') return reqs;
      if (next.tok !== ',') throw new ParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.#lookahead(true);
      if (after.tok !== 'id' && after.tok !== '!') throw new ParseError(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  #requirement(): LabelRequirement {
    const { key, op: inferred } = this.#keyAndInferredOperator();
    if (inferred) return build(key, inferred, []);
    const op = this.#operator();
    const values = op === 'in' || op === 'notin' ? this.#values() : this.#exactValue();
    // sets.String.List(): unique and sorted.
    return build(key, op, [...values].sort());
  }

  #keyAndInferredOperator(): { key: string; op: 'exists' | '!' | undefined } {
    let it = this.#consume(true);
    let op: 'exists' | '!' | undefined;
    if (it.tok === '!') {
      op = '!';
      it = this.#consume(true);
    }
    if (it.tok !== 'id') throw new ParseError(`found '${it.lit}', expected: identifier`);
    const keyErrs = isQualifiedName(it.lit);
    // The parser validates with a nil field path, which Go prints as "<nil>".
    if (keyErrs.length) throw new ParseError(invalid('<nil>', goQuote(it.lit), keyErrs.join('; ')));
    const next = this.#lookahead(true).tok;
    if ((next === 'eos' || next === ',') && op !== '!') op = 'exists';
    return { key: it.lit, op };
  }

  #operator(): LabelOperator {
    const { tok, lit } = this.#consume(false);
    switch (tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return tok;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new ParseError(`found '${lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  #values(): Set<string> {
    const open = this.#consume(true);
    if (open.tok !== '(') throw new ParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.#lookahead(true);
    if (tok === 'id' || tok === ',') {
      const s = this.#identifiers();
      if (this.#consume(true).tok !== ')') throw new ParseError(`found '${lit}', expected: ')'`);
      return s;
    }
    if (tok === ')') {
      // "()" is the set holding the empty string.
      this.#consume(true);
      return new Set(['']);
    }
    throw new ParseError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  /** A comma-separated list in which empty entries are the empty string ("(a,,b)", "(,a)", "(a,)"). */
  #identifiers(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.#consume(true);
      if (tok === 'id') {
        s.add(lit);
        const next = this.#lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return s;
        throw new ParseError(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        if (s.size === 0) s.add('');
        const next = this.#lookahead(true).tok;
        if (next === ')') {
          s.add('');
          return s;
        }
        if (next === ',') s.add('');
        continue;
      }
      throw new ParseError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  #exactValue(): Set<string> {
    const next = this.#lookahead(true).tok;
    if (next === 'eos' || next === ',') return new Set(['']);
    const { tok, lit } = this.#consume(true);
    if (tok === 'id') return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

function build(key: string, op: LabelOperator, values: string[]): LabelRequirement {
  const err = requirementError(key, op, values);
  if (err !== undefined) throw new ParseError(err);
  return freezeRequirement(key, op, values);
}

/**
 * Parses a label selector: `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a,b)`, `key notin (a,b)`,
 * `key>N`, `key<N`, joined by commas (AND). The empty string matches everything. Throws a 400 StatusError.
 */
export function parseLabelSelector(s: string): LabelSelector {
  if (s === '') return everythingLabels;
  let reqs: LabelRequirement[];
  try {
    reqs = new Parser(lex(s)).parse();
  } catch (e) {
    if (e instanceof ParseError) throw newBadRequest(e.message);
    throw e;
  }
  return reqs.length ? new CompiledSelector(sortByKey(reqs)) : everythingLabels;
}

/** An equality selector for every key of `set` (not validated, as labels.SelectorFromSet); {} is everything. */
export function labelSelectorFromSet(set: Labels): LabelSelector {
  const keys = Object.keys(set);
  if (keys.length === 0) return everythingLabels;
  return new CompiledSelector(sortByKey(keys.map((k) => freezeRequirement(k, '=', [set[k] as string]))));
}

const METAV1_OPERATORS: Readonly<Record<string, LabelOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: null/undefined selects nothing, {} selects everything; matchLabels and
 * matchExpressions are validated like parsed requirements (400 on error).
 */
export function labelSelectorFromMetav1(ls: MetaV1LabelSelector | null | undefined): LabelSelector {
  if (ls === null || ls === undefined) return nothingLabels;
  const matchLabels = ls.matchLabels ?? {};
  const labelKeys = Object.keys(matchLabels).sort();
  const exprs = ls.matchExpressions ?? [];
  if (labelKeys.length + exprs.length === 0) return everythingLabels;
  const reqs: LabelRequirement[] = [];
  const add = (key: string, op: LabelOperator, values: string[]): void => {
    const err = requirementError(key, op, values);
    if (err !== undefined) throw newBadRequest(err);
    reqs.push(freezeRequirement(key, op, values));
  };
  // Go ranges over the map in random order; sorting makes the first reported error deterministic.
  for (const k of labelKeys) add(k, '=', [matchLabels[k] as string]);
  for (const e of exprs) {
    // Decoded JSON may lack fields the type promises; Go would see zero values.
    const name: string = e.operator ?? '';
    const op = Object.hasOwn(METAV1_OPERATORS, name) ? METAV1_OPERATORS[name] : undefined;
    if (op === undefined) throw newBadRequest(`${goQuote(name)} is not a valid pod selector operator`);
    add(e.key ?? '', op, [...(e.values ?? [])]);
  }
  return new CompiledSelector(sortByKey(reqs));
}

/**
 * The JSONPath of a printer column, read and evaluated as client-go's util/jsonpath does for kube-apiserver's
 * custom resource table convertor (the path wrapped in `{}`, missing keys allowed): `.field` (backslash escapes a
 * dot), `['key']`, `[n]` and `[-n]`, `[start:end]`, `[*]` / `.*`, unions `[0,2]`, recursive descent `..name`, and
 * filters `[?(@.type=="Ready")]` with ==, !=, <, >, <=, >= or a bare `[?(@.field)]` for existence. Step slices
 * (`[a:b:c]`), template text and `range`/`end` are rejected when compiling: they make no sense in a column.
 */

/** A path kapi cannot compile, or an evaluation kube would fail (the cell is then null). */
export class ColumnPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ColumnPathError';
  }
}

type Operator = '==' | '!=' | '<' | '>' | '<=' | '>=';

type Operand = { kind: 'literal'; value: string | number | boolean } | { kind: 'path'; steps: Step[] };

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'slice'; start?: number; end?: number; derivedEnd: boolean }
  | { kind: 'union'; branches: Step[][] }
  | { kind: 'filter'; left: Step[]; op: Operator | 'exists'; right?: Operand };

const OPERATORS = new Set<string>(['==', '!=', '<', '>', '<=', '>=']);
const TERMINATORS = new Set([' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}']);
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const COMPARISON = /^([^!<>=]+)([!<>=]+)(.+?)$/s;
const NUMBER = /^[+-]?[\d.]+$/;

function isAlphaNumeric(c: string | undefined): boolean {
  return c !== undefined && (c === '_' || /[\p{L}\p{Nd}]/u.test(c));
}

/** Reads a path (no braces) into steps; `whole` is the column's jsonPath, for messages. */
class Parser {
  #pos = 0;
  private readonly text: string;
  private readonly whole: string;
  constructor(text: string, whole: string) {
    this.text = text;
    this.whole = whole;
  }

  #fail(what: string): never {
    throw new ColumnPathError(`invalid printer column path ${JSON.stringify(this.whole)}: ${what}`);
  }

  parse(): Step[] {
    const steps: Step[] = [];
    const t = this.text;
    while (this.#pos < t.length) {
      const rest = t.slice(this.#pos);
      const c = t[this.#pos] as string;
      if (rest.startsWith('[?(')) steps.push(this.#filter());
      else if (rest.startsWith('..')) {
        if (steps.at(-1)?.kind === 'recursive') this.#fail('invalid multiple recursive descent');
        this.#pos += 2;
        steps.push({ kind: 'recursive' });
        if (isAlphaNumeric(t[this.#pos])) steps.push(this.#field());
      } else if (c === ' ' || c === '@' || c === '$') this.#pos++;
      else if (c === '[') steps.push(...this.#array());
      else if (c === '.') {
        this.#pos++;
        steps.push(this.#field());
      } else this.#fail(`unexpected ${JSON.stringify(c)} at position ${this.#pos}`);
    }
    return steps;
  }

  #field(): Step {
    const t = this.text;
    let name = '';
    while (this.#pos < t.length) {
      const c = t[this.#pos] as string;
      if (c === '\\') {
        name += t[this.#pos + 1] ?? '';
        this.#pos += 2;
      } else if (TERMINATORS.has(c)) break;
      else {
        name += c;
        this.#pos++;
      }
    }
    return name === '*' ? { kind: 'wildcard' } : { kind: 'field', name };
  }

  #array(): Step[] {
    const close = this.text.indexOf(']', this.#pos);
    const nl = this.text.indexOf('\n', this.#pos);
    if (close < 0 || (nl >= 0 && nl < close)) this.#fail('unterminated array');
    const inner = this.text.slice(this.#pos + 1, close);
    this.#pos = close + 1;
    return this.#arrayContent(inner === '*' ? ':' : inner);
  }

  #arrayContent(inner: string): Step[] {
    const parts = inner.split(',');
    if (parts.length > 1) {
      const branches = parts.map((p) => {
        const s = p.trim();
        return new Parser(`[${s}]`, this.whole).parse();
      });
      return [{ kind: 'union', branches }];
    }
    const key = DICT_KEY.exec(inner);
    // ['a.b'] reads as .a.b, as in client-go.
    if (key) return new Parser(`.${key[1]}`, this.whole).parse();
    const slice = SLICE.exec(inner);
    if (!slice) this.#fail(`invalid array index ${inner}`);
    if (slice[3] !== undefined) this.#fail(`array step ${inner} is not supported`);
    const start = slice[1] ? Number(slice[1]) : undefined;
    if (slice[2] === undefined) return [{ kind: 'slice', start, end: (start ?? 0) + 1, derivedEnd: true }];
    const end = slice[2].length > 1 ? Number(slice[2].slice(1)) : undefined;
    return [{ kind: 'slice', start, end, derivedEnd: false }];
  }

  #filter(): Step {
    const t = this.text;
    this.#pos += 3;
    const begin = this.#pos;
    let quote: string | undefined;
    let opened = false;
    let closed = false;
    for (;;) {
      const c = t[this.#pos++];
      if (c === undefined || c === '\n') this.#fail('unterminated filter');
      if (c === '"' || c === "'") {
        if (!opened) {
          opened = true;
          quote = c;
        } else if (c === quote && t[this.#pos - 2] !== '\\') closed = true;
      } else if (c === ')' && opened === closed) break;
    }
    if (t[this.#pos++] !== ']') this.#fail('unclosed array, expected ]');
    const inner = t.slice(begin, this.#pos - 2);
    const m = COMPARISON.exec(inner);
    if (!m) return { kind: 'filter', left: new Parser(inner, this.whole).parse(), op: 'exists' };
    const op = m[2] as string;
    if (!OPERATORS.has(op)) this.#fail(`unrecognized filter operator ${op}`);
    const left = this.#operand(m[1] as string);
    if (left.kind !== 'path') this.#fail(`the left side of ${inner} must be a path such as @.type`);
    return { kind: 'filter', left: left.steps, op: op as Operator, right: this.#operand(m[3] as string) };
  }

  #operand(raw: string): Operand {
    const s = raw.trim();
    const q = s[0];
    if ((q === '"' || q === "'") && s.length >= 2 && s.endsWith(q)) return { kind: 'literal', value: unquote(s.slice(1, -1), q) };
    if (s === 'true' || s === 'false') return { kind: 'literal', value: s === 'true' };
    if (NUMBER.test(s)) {
      const n = Number(s);
      if (Number.isNaN(n)) this.#fail(`cannot parse number ${s}`);
      return { kind: 'literal', value: n };
    }
    if (s[0] !== '@' && s[0] !== '$' && s[0] !== '.') this.#fail(`unrecognized filter operand ${s}`);
    return { kind: 'path', steps: new Parser(s, this.whole).parse() };
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'" };

function unquote(body: string, quote: string): string {
  return body.replace(/\\(.)/g, (whole, c: string) => (c === quote || c in ESCAPES ? (ESCAPES[c] as string) : whole));
}

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What Go's reflection iterates: map values, slice elements, and a string's bytes. */
function children(v: Json): Json[] {
  if (Array.isArray(v)) return v;
  if (isObject(v)) return Object.values(v);
  if (typeof v === 'string') return [...new TextEncoder().encode(v)];
  return [];
}

type Kind = 'string' | 'number' | 'boolean';

function kindOf(v: Json, op: string): Kind {
  const k = typeof v;
  if (k === 'string' || k === 'number' || k === 'boolean') return k;
  throw new ColumnPathError(`invalid type for comparison in ${op}`);
}

/** text/template's eq/ne/lt/…: same basic kinds only; booleans and only by (in)equality. */
function compare(op: Operator, l: Json, r: Json): boolean {
  const lk = kindOf(l, op);
  if (lk !== kindOf(r, op)) throw new ColumnPathError('incompatible types for comparison');
  if (op === '==') return l === r;
  if (op === '!=') return l !== r;
  if (lk === 'boolean') throw new ColumnPathError('invalid type for comparison');
  const a = l as string | number;
  const b = r as string | number;
  if (op === '<') return a < b;
  if (op === '>') return a > b;
  if (op === '<=') return a <= b;
  return a >= b;
}

function sliceOf(v: Json[], step: Extract<Step, { kind: 'slice' }>): Json[] {
  const len = v.length;
  let start = step.start ?? 0;
  if (start < 0) start += len;
  let end = step.end ?? len;
  // [-1] derives end 0 before the length is known: it means "to the end".
  if (end < 0 || (end === 0 && step.derivedEnd)) end += len;
  if (end !== start) {
    if (start >= len) throw new ColumnPathError(`array index out of bounds: index ${start}, length ${len}`);
    if (end > len) throw new ColumnPathError(`array index out of bounds: index ${end - 1}, length ${len}`);
  }
  if (start < 0 || end < start) throw new ColumnPathError(`slice bounds out of range [${start}:${end}]`);
  return v.slice(start, end);
}

function evalSteps(input: Json[], steps: readonly Step[]): Json[] {
  let cur = input;
  for (const step of steps) cur = evalStep(cur, step);
  return cur;
}

function evalStep(input: Json[], step: Step): Json[] {
  const out: Json[] = [];
  switch (step.kind) {
    case 'field':
      for (const v of input) if (isObject(v) && Object.hasOwn(v, step.name)) out.push(v[step.name]);
      return out;
    case 'wildcard':
      for (const v of input) out.push(...children(v));
      return out;
    case 'recursive': {
      const walk = (values: Json[]): void => {
        for (const v of values) {
          const kids = children(v);
          if (kids.length === 0) continue;
          out.push(v);
          walk(kids);
        }
      };
      walk(input);
      return out;
    }
    case 'slice':
      for (const v of input) {
        if (v === null || v === undefined) continue;
        if (!Array.isArray(v)) throw new ColumnPathError(`${typeof v} is not array or slice`);
        out.push(...sliceOf(v, step));
      }
      return out;
    case 'union':
      for (const b of step.branches) out.push(...evalSteps(input, b));
      return out;
    case 'filter':
      for (const v of input) {
        if (!Array.isArray(v)) throw new ColumnPathError(`${v === null ? 'null' : typeof v} is not array or slice and cannot be filtered`);
        for (const el of v) if (passes(el, step)) out.push(el);
      }
      return out;
  }
}

function passes(el: Json, f: Extract<Step, { kind: 'filter' }>): boolean {
  if (f.op === 'exists') {
    try {
      return evalSteps([el], f.left).length > 0;
    } catch {
      return false;
    }
  }
  const lefts = evalSteps([el], f.left);
  if (lefts.length === 0) return false;
  if (lefts.length > 1) throw new ColumnPathError('can only compare one element at a time');
  const right = f.right as Operand;
  const rights = right.kind === 'literal' ? [right.value] : evalSteps([el], right.steps);
  if (rights.length === 0) return false;
  if (rights.length > 1) throw new ColumnPathError('can only compare one element at a time');
  return compare(f.op, lefts[0], rights[0]);
}

/** A compiled column path. */
export interface ColumnPath {
  readonly jsonPath: string;
  /** Every value the path reaches, in order; throws ColumnPathError where client-go's jsonpath would fail. */
  findAll(obj: unknown): unknown[];
}

/** Compiles a printer column's jsonPath (`.spec.replicas`); throws ColumnPathError on syntax kapi cannot read. */
export function compileColumnPath(jsonPath: string): ColumnPath {
  if (/[{}]/.test(jsonPath)) throw new ColumnPathError(`invalid printer column path ${JSON.stringify(jsonPath)}: braces are not allowed`);
  const steps = new Parser(jsonPath, jsonPath).parse();
  return Object.freeze({ jsonPath, findAll: (obj: unknown) => evalSteps([obj], steps) });
}

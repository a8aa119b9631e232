/**
 * Linear-time matching for CRD patterns, as Go's regexp guarantees. JavaScript's RegExp backtracks: a pattern such as
 * `^(a|a?)+$` takes time exponential in the input (30 characters hold the event loop for minutes), so one custom
 * object could stop the whole server. This runs the pattern as a Thompson NFA instead — every state advanced once per
 * input character, O(pattern × input) — and keeps RegExp only for what it does in constant time: whether one code
 * point belongs to one character class (`[a-z]`, `\p{Greek}`, a literal under `(?i)`).
 *
 * It reads the `u`-mode source that translateRE2 writes, a small regular subset of JavaScript's syntax: groups `(`,
 * `(?:`, `(?i:`, `(?-i:`; `|`; the quantifiers `* + ? {n} {n,} {n,m}` (lazy or not: whether there is a match does not
 * depend on it); classes `[...]`; `\u{…}`, `\p{…}`, `\P{…}` and ASCII letters and digits as literals; the assertions
 * `^`, `$`, `\b`, `\B`, and `(?<![^\n])` / `(?![^\n])` for (?m)'s `^` / `$`.
 */

/** Go's regexp/syntax limit on a compiled program (maxSize: 128 MiB over 40-byte instructions); above it, "expression too large". */
export const MAX_PROGRAM_SIZE = Math.floor((128 << 20) / 40);

export class ProgramTooLargeError extends Error {
  constructor() {
    super('expression too large');
    this.name = 'ProgramTooLargeError';
  }
}

/**
 * Go's repeatIsValid: nested counted repetitions may not make more than 1000 copies of what they repeat
 * (`(a{2}){501}` is "invalid repeat count"); `op` is the outer repetition's text, as in Go's error.
 */
export class RepeatCountError extends Error {
  readonly op: string;
  constructor(op: string) {
    super(`invalid repeat count: ${op}`);
    this.op = op;
    this.name = 'RepeatCountError';
  }
}

export interface RE2Matcher {
  /** Whether the pattern matches somewhere in `s` (Go's MatchString). */
  test(s: string): boolean;
}

type Assertion = 'begin' | 'end' | 'lineBegin' | 'lineEnd' | 'wordBoundary' | 'notWordBoundary';

type Node =
  | { t: 'char'; m: number }
  | { t: 'assert'; k: Assertion }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; e: Node; min: number; max: number; counted: boolean };

const OP_CHAR = 0;
const OP_SPLIT = 1;
const OP_ASSERT = 2;
const OP_MATCH = 3;

const ASSERTIONS: readonly Assertion[] = ['begin', 'end', 'lineBegin', 'lineEnd', 'wordBoundary', 'notWordBoundary'];

/** Whether one code point is in a class: the class as a one-character RegExp, ASCII answers remembered. */
class CharMatcher {
  private readonly re: RegExp;
  private readonly ascii = new Uint8Array(128);
  constructor(text: string, ignoreCase: boolean) {
    this.re = new RegExp(`^(?:${text})$`, ignoreCase ? 'ui' : 'u');
  }
  has(c: string): boolean {
    const code = c.charCodeAt(0);
    if (code >= 128 || c.length !== 1) return this.re.test(c);
    let known = this.ascii[code] as number;
    if (known === 0) {
      known = this.re.test(c) ? 2 : 1;
      this.ascii[code] = known;
    }
    return known === 2;
  }
}

class Parser {
  private pos = 0;
  private ignoreCase = false;
  readonly matchers: CharMatcher[] = [];
  private readonly matcherIndex = new Map<string, number>();

  private readonly src: string;
  constructor(src: string) {
    this.src = src;
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos !== this.src.length) throw new Error(`re2-matcher: unexpected ${JSON.stringify(this.src.slice(this.pos))}`);
    return node;
  }

  private alternation(): Node {
    const items = [this.concatenation()];
    while (this.src[this.pos] === '|') {
      this.pos++;
      items.push(this.concatenation());
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'alt', items };
  }

  private concatenation(): Node {
    const items: Node[] = [];
    while (this.pos < this.src.length && this.src[this.pos] !== '|' && this.src[this.pos] !== ')') {
      let atom = this.atom();
      for (let at = this.pos, q = this.quantifier(); q; at = this.pos, q = this.quantifier()) {
        atom = { t: 'rep', e: atom, min: q.min, max: q.max, counted: q.counted };
        if (q.counted && (q.min >= 2 || q.max >= 2) && !repeatIsValid(atom, 1000)) {
          throw new RepeatCountError(this.src.slice(at, this.pos).replace(/\?$/, ''));
        }
      }
      items.push(atom);
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'cat', items };
  }

  private quantifier(): { min: number; max: number; counted: boolean } | undefined {
    const c = this.src[this.pos];
    let q: { min: number; max: number; counted: boolean } | undefined;
    if (c === '*') q = { min: 0, max: -1, counted: false };
    else if (c === '+') q = { min: 1, max: -1, counted: false };
    else if (c === '?') q = { min: 0, max: 1, counted: false };
    if (q) this.pos++;
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 16));
      if (!m) return undefined;
      const min = Number(m[1]);
      q = { min, max: m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]), counted: true };
      this.pos += m[0].length;
    } else return undefined;
    // Lazy or greedy: the same strings match.
    if (this.src[this.pos] === '?') this.pos++;
    return q;
  }

  private atom(): Node {
    const rest = this.src.slice(this.pos, this.pos + 12);
    if (rest.startsWith('(?<![^\\n])')) {
      this.pos += 10;
      return { t: 'assert', k: 'lineBegin' };
    }
    if (rest.startsWith('(?![^\\n])')) {
      this.pos += 9;
      return { t: 'assert', k: 'lineEnd' };
    }
    const c = this.src[this.pos] as string;
    switch (c) {
      case '(':
        return this.group();
      case '^':
        this.pos++;
        return { t: 'assert', k: 'begin' };
      case '$':
        this.pos++;
        return { t: 'assert', k: 'end' };
      case '[':
        return this.char(this.classText());
      case '\\': {
        const next = this.src[this.pos + 1];
        if (next === 'b' || next === 'B') {
          this.pos += 2;
          return { t: 'assert', k: next === 'b' ? 'wordBoundary' : 'notWordBoundary' };
        }
        return this.char(this.escapeText());
      }
      default:
        this.pos++;
        return this.char(c);
    }
  }

  private group(): Node {
    const saved = this.ignoreCase;
    if (this.src.startsWith('(?i:', this.pos)) {
      this.ignoreCase = true;
      this.pos += 4;
    } else if (this.src.startsWith('(?-i:', this.pos)) {
      this.ignoreCase = false;
      this.pos += 5;
    } else if (this.src.startsWith('(?:', this.pos)) this.pos += 3;
    else this.pos += 1;
    const inner = this.pos < this.src.length && this.src[this.pos] === ')' ? ({ t: 'cat', items: [] } as Node) : this.alternation();
    if (this.src[this.pos] !== ')') throw new Error('re2-matcher: missing )');
    this.pos++;
    this.ignoreCase = saved;
    return inner;
  }

  /** `\u{…}`, `\p{…}`, `\P{…}` or a two-character escape. */
  private escapeText(): string {
    const start = this.pos;
    const kind = this.src[this.pos + 1];
    if ((kind === 'u' || kind === 'p' || kind === 'P') && this.src[this.pos + 2] === '{') {
      const close = this.src.indexOf('}', this.pos);
      this.pos = close + 1;
    } else this.pos += 2;
    return this.src.slice(start, this.pos);
  }

  private classText(): string {
    const start = this.pos;
    this.pos++;
    if (this.src[this.pos] === '^') this.pos++;
    while (this.pos < this.src.length && this.src[this.pos] !== ']') {
      if (this.src[this.pos] === '\\') this.escapeText();
      else this.pos++;
    }
    this.pos++;
    return this.src.slice(start, this.pos);
  }

  private char(text: string): Node {
    const key = `${this.ignoreCase ? 'i' : ''}:${text}`;
    let m = this.matcherIndex.get(key);
    if (m === undefined) {
      m = this.matchers.length;
      this.matchers.push(new CharMatcher(text, this.ignoreCase));
      this.matcherIndex.set(key, m);
    }
    return { t: 'char', m };
  }
}

/** A Thompson NFA program in parallel arrays: op, and two operands (next / matcher / assertion; split's second branch). */
class Program {
  readonly op: number[] = [];
  readonly a: number[] = [];
  readonly b: number[] = [];

  emit(op: number, a: number, b = -1): number {
    if (this.op.length >= MAX_PROGRAM_SIZE) throw new ProgramTooLargeError();
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.op.length - 1;
  }

  /** Compiles `n` so that it continues at `next`; returns its entry. Built back to front, repetitions expanded. */
  compile(n: Node, next: number): number {
    switch (n.t) {
      case 'char':
        return this.emit(OP_CHAR, n.m, next);
      case 'assert':
        return this.emit(OP_ASSERT, ASSERTIONS.indexOf(n.k), next);
      case 'cat': {
        let entry = next;
        for (let i = n.items.length - 1; i >= 0; i--) entry = this.compile(n.items[i] as Node, entry);
        return entry;
      }
      case 'alt': {
        let entry = this.compile(n.items[n.items.length - 1] as Node, next);
        for (let i = n.items.length - 2; i >= 0; i--) entry = this.emit(OP_SPLIT, this.compile(n.items[i] as Node, next), entry);
        return entry;
      }
      case 'rep': {
        let entry = next;
        if (n.max < 0) {
          // e*: a split whose first branch runs e and comes back to it.
          const loop = this.emit(OP_SPLIT, -1, next);
          this.a[loop] = this.compile(n.e, loop);
          entry = loop;
        } else {
          // (e(e…)?)? for the optional copies.
          for (let i = n.min; i < n.max; i++) entry = this.emit(OP_SPLIT, this.compile(n.e, entry), next);
        }
        for (let i = 0; i < n.min; i++) entry = this.compile(n.e, entry);
        return entry;
      }
    }
  }
}

function repeatIsValid(n: Node, limit: number): boolean {
  let left = limit;
  if (n.t === 'rep' && n.counted) {
    let m = n.max;
    if (m === 0) return true;
    if (m < 0) m = n.min;
    if (m > left) return false;
    if (m > 0) left = Math.floor(left / m);
  }
  const subs = n.t === 'cat' || n.t === 'alt' ? n.items : n.t === 'rep' ? [n.e] : [];
  return subs.every((sub) => repeatIsValid(sub, left));
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Za-z_]$/.test(c);

/** Compiles translateRE2's output; throws ProgramTooLargeError above Go's program size. */
export function compileMatcher(jsSource: string): RE2Matcher {
  const parser = new Parser(jsSource);
  const root = parser.parse();
  const matchers = parser.matchers;
  const prog = new Program();
  const start = prog.compile(root, prog.emit(OP_MATCH, -1));
  const { op, a, b } = prog;
  const size = op.length;

  return {
    test(s: string): boolean {
      const text = Array.from(s);
      let clist = new Int32Array(size);
      let nlist = new Int32Array(size);
      let clen = 0;
      let nlen = 0;
      // The generation each pc was last added in, so a pc enters a list once per position (empty loops end).
      const seen = new Int32Array(size).fill(-1);
      // Every pc is expanded once per position and pushes at most two.
      const stack = new Int32Array(2 * size + 1);

      /** Adds pc and what it reaches without consuming input at position `at`; true when Match is reached. */
      const add = (list: Int32Array, len: number, pc: number, at: number, gen: number): [number, boolean] => {
        let sp = 0;
        stack[sp++] = pc;
        while (sp > 0) {
          const p = stack[--sp] as number;
          if (seen[p] === gen) continue;
          seen[p] = gen;
          switch (op[p]) {
            case OP_MATCH:
              return [len, true];
            case OP_CHAR:
              list[len++] = p;
              break;
            case OP_SPLIT:
              stack[sp++] = b[p] as number;
              stack[sp++] = a[p] as number;
              break;
            case OP_ASSERT:
              if (holds(ASSERTIONS[a[p] as number] as Assertion, text, at)) stack[sp++] = b[p] as number;
              break;
          }
        }
        return [len, false];
      };

      for (let at = 0; ; at++) {
        // Unanchored: a match may start at every position (Go's MatchString).
        let matched: boolean;
        [clen, matched] = add(clist, clen, start, at, at);
        if (matched) return true;
        if (at === text.length) return false;
        const c = text[at] as string;
        nlen = 0;
        for (let i = 0; i < clen; i++) {
          const p = clist[i] as number;
          if (!(matchers[a[p] as number] as CharMatcher).has(c)) continue;
          [nlen, matched] = add(nlist, nlen, b[p] as number, at + 1, at + 1);
          if (matched) return true;
        }
        [clist, nlist] = [nlist, clist];
        clen = nlen;
      }
    },
  };
}

function holds(k: Assertion, text: string[], at: number): boolean {
  switch (k) {
    case 'begin':
      return at === 0;
    case 'end':
      return at === text.length;
    case 'lineBegin':
      return at === 0 || text[at - 1] === '\n';
    case 'lineEnd':
      return at === text.length || text[at] === '\n';
    case 'wordBoundary':
      return isWordChar(text[at - 1]) !== isWordChar(text[at]);
    case 'notWordBoundary':
      return isWordChar(text[at - 1]) === isWordChar(text[at]);
  }
}

/**
 * Regular expressions matched in time linear in the input, as Go's regexp (RE2) matches them. JavaScript's RegExp
 * backtracks: `^(a|a?)+$` on 30 a's and a `!` takes minutes, holding the event loop — one CEL rule or CRD pattern
 * would stop the whole server. This runs a pattern as a Pike VM (a Thompson NFA whose threads keep their start and
 * priority): every state advances once per input character, O(pattern × input), and matches are leftmost-first as
 * Go's. RegExp is kept only where it takes constant time: whether one code point belongs to one class (`[a-z]`,
 * `\p{Greek}`, `.`, a literal under `i`).
 *
 * The input is the `u`-mode JavaScript source the RE2 translators write (this package's re2.ts, apiextensions'
 * re2-regexp.ts), already accepted by `new RegExp(source, 'u')`: groups `(`, `(?:`, `(?<name>`, `(?ims-ims:`; `|`;
 * the quantifiers `* + ? {n} {n,} {n,m}`, greedy or lazy; classes, escapes and literals; the assertions `^`, `$`,
 * `\b`, `\B`, and the look-arounds the translators write for RE2's `\A` and `\z` (`(?<![\s\S])`, `(?![\s\S])`) and
 * for (?m)'s `^` and `$` (`(?<![^\n])`, `(?![^\n])`).
 */

/** Go's regexp/syntax limit on a program (maxSize: 128 MiB over 40-byte instructions); above it, "expression too large". */
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
    this.name = 'RepeatCountError';
    this.op = op;
  }
}

export interface LinearRegExp {
  /** Whether the pattern matches somewhere in `s` (Go's MatchString). */
  test(s: string): boolean;
  /** The leftmost-first match starting at or after UTF-16 index `from`: [start, end) in UTF-16 indices, or null. */
  exec(s: string, from?: number): [number, number] | null;
}

export interface LinearRegExpFlags {
  i?: boolean;
  m?: boolean;
  s?: boolean;
}

type Assertion = 'begin' | 'end' | 'lineBegin' | 'lineEnd' | 'wordBoundary' | 'notWordBoundary';

type Node =
  | { t: 'char'; m: number }
  | { t: 'assert'; k: Assertion }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; e: Node; min: number; max: number; lazy: boolean; counted: boolean };

const OP_CHAR = 0;
const OP_SPLIT = 1;
const OP_ASSERT = 2;
const OP_MATCH = 3;

const ASSERTIONS: readonly Assertion[] = ['begin', 'end', 'lineBegin', 'lineEnd', 'wordBoundary', 'notWordBoundary'];

const LOOKAROUNDS: ReadonlyArray<readonly [string, Assertion]> = [
  ['(?<![\\s\\S])', 'begin'],
  ['(?![\\s\\S])', 'end'],
  ['(?<![^\\n])', 'lineBegin'],
  ['(?![^\\n])', 'lineEnd'],
];

/** Whether one code point is in a class: the class as a one-character RegExp, ASCII answers remembered. */
class CharMatcher {
  private readonly re: RegExp;
  private readonly ascii = new Uint8Array(128);
  constructor(text: string, flags: string) {
    this.re = new RegExp(`^(?:${text})$`, `u${flags}`);
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

interface Scope {
  i: boolean;
  m: boolean;
  s: boolean;
}

class Parser {
  private pos = 0;
  private scope: Scope;
  readonly matchers: CharMatcher[] = [];
  private readonly matcherIndex = new Map<string, number>();
  private readonly src: string;

  constructor(src: string, flags: LinearRegExpFlags) {
    this.src = src;
    this.scope = { i: !!flags.i, m: !!flags.m, s: !!flags.s };
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos !== this.src.length) throw new Error(`linear-regexp: unexpected ${JSON.stringify(this.src.slice(this.pos))}`);
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
        atom = { t: 'rep', e: atom, ...q };
        if (q.counted && (q.min >= 2 || q.max >= 2) && !repeatIsValid(atom, 1000)) {
          throw new RepeatCountError(this.src.slice(at, this.pos).replace(/\?$/, ''));
        }
      }
      items.push(atom);
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'cat', items };
  }

  private quantifier(): { min: number; max: number; lazy: boolean; counted: boolean } | undefined {
    const c = this.src[this.pos];
    let min: number;
    let max: number;
    let counted = false;
    if (c === '*') [min, max] = [0, -1];
    else if (c === '+') [min, max] = [1, -1];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 16));
      if (!m) return undefined;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
      counted = true;
      this.pos += m[0].length - 1;
    } else return undefined;
    this.pos++;
    const lazy = this.src[this.pos] === '?';
    if (lazy) this.pos++;
    return { min, max, lazy, counted };
  }

  private atom(): Node {
    for (const [text, k] of LOOKAROUNDS) {
      if (this.src.startsWith(text, this.pos)) {
        this.pos += text.length;
        return { t: 'assert', k };
      }
    }
    const c = this.src[this.pos] as string;
    switch (c) {
      case '(':
        return this.group();
      case '^':
        this.pos++;
        return { t: 'assert', k: this.scope.m ? 'lineBegin' : 'begin' };
      case '$':
        this.pos++;
        return { t: 'assert', k: this.scope.m ? 'lineEnd' : 'end' };
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
      default: {
        // One code point, both halves of a surrogate pair.
        const width = (c.codePointAt(0) as number) > 0xffff ? 2 : 1;
        const text = this.src.slice(this.pos, this.pos + width);
        this.pos += width;
        return this.char(text);
      }
    }
  }

  private group(): Node {
    const saved = this.scope;
    const modifiers = /^\(\?([ims]*)(?:-([ims]*))?:/.exec(this.src.slice(this.pos, this.pos + 12));
    if (modifiers) {
      const scope = { ...saved };
      for (const f of modifiers[1] ?? '') scope[f as keyof Scope] = true;
      for (const f of modifiers[2] ?? '') scope[f as keyof Scope] = false;
      this.scope = scope;
      this.pos += modifiers[0].length;
    } else if (this.src.startsWith('(?<', this.pos)) this.pos = this.src.indexOf('>', this.pos) + 1;
    else this.pos += 1;
    const inner = this.src[this.pos] === ')' ? ({ t: 'cat', items: [] } as Node) : this.alternation();
    if (this.src[this.pos] !== ')') throw new Error('linear-regexp: missing )');
    this.pos++;
    this.scope = saved;
    return inner;
  }

  /** `\u{…}`, `\p{…}`, `\P{…}`, `\xHH`, `\uHHHH`, or a two-character escape. */
  private escapeText(): string {
    const start = this.pos;
    const kind = this.src[this.pos + 1];
    if ((kind === 'u' || kind === 'p' || kind === 'P') && this.src[this.pos + 2] === '{') this.pos = this.src.indexOf('}', this.pos) + 1;
    else if (kind === 'x') this.pos += 4;
    else if (kind === 'u') this.pos += 6;
    else this.pos += 2;
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
    // Only `i` changes what a class matches, and `s` what `.` matches.
    const flags = `${this.scope.i ? 'i' : ''}${this.scope.s ? 's' : ''}`;
    const key = `${flags}:${text}`;
    let m = this.matcherIndex.get(key);
    if (m === undefined) {
      m = this.matchers.length;
      this.matchers.push(new CharMatcher(text, flags));
      this.matcherIndex.set(key, m);
    }
    return { t: 'char', m };
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

/** A program in parallel arrays: op and two operands (matcher or assertion and next; a split's preferred and other branch). */
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

  /** A split preferring `first` (greedy: the repeated part; lazy: what follows). */
  split(body: number, next: number, lazy: boolean): number {
    return lazy ? this.emit(OP_SPLIT, next, body) : this.emit(OP_SPLIT, body, next);
  }

  /** Compiles `n` to continue at `next`; returns its entry. Built back to front, counted repetitions expanded. */
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
          // e*: a split whose repeating branch runs e and comes back to it.
          const loop = this.split(-1, next, n.lazy);
          if (n.lazy) this.b[loop] = this.compile(n.e, loop);
          else this.a[loop] = this.compile(n.e, loop);
          entry = loop;
        } else {
          // (e(e…)?)? for the optional copies.
          for (let i = n.min; i < n.max; i++) entry = this.split(this.compile(n.e, entry), next, n.lazy);
        }
        for (let i = 0; i < n.min; i++) entry = this.compile(n.e, entry);
        return entry;
      }
    }
  }
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Za-z_]$/.test(c);

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

/**
 * Compiles a translated pattern (see the file comment); `flags` are those the whole source is compiled with.
 * Throws RepeatCountError or ProgramTooLargeError where Go's regexp refuses the pattern.
 */
export function compileLinearRegExp(source: string, flags: LinearRegExpFlags = {}): LinearRegExp {
  const parser = new Parser(source, flags);
  const root = parser.parse();
  const matchers = parser.matchers;
  const prog = new Program();
  const start = prog.compile(root, prog.emit(OP_MATCH, -1));
  const { op, a, b } = prog;
  const size = op.length;

  /** The leftmost-first match in code points from code point `from`, or undefined; `any` stops at the first match. */
  const run = (text: string[], from: number, any: boolean): [number, number] | undefined => {
    // Thread lists in priority order: pc and the code point where the thread's match started.
    let cpc = new Int32Array(size);
    let cstart = new Int32Array(size);
    let npc = new Int32Array(size);
    let nstart = new Int32Array(size);
    let clen = 0;
    let nlen = 0;
    // The position each pc was last added at, so a pc enters a list once per position (empty loops end).
    const seen = new Int32Array(size).fill(-1);
    // Every pc is expanded once per position and pushes at most two.
    const stack = new Int32Array(2 * size + 1);
    let found: [number, number] | undefined;

    /** Adds pc and what it reaches without input at `at`, in priority order, to the list (pcs, starts, len). */
    const add = (pcs: Int32Array, starts: Int32Array, len: number, pc: number, at: number, begin: number): number => {
      let sp = 0;
      stack[sp++] = pc;
      while (sp > 0) {
        const p = stack[--sp] as number;
        if (seen[p] === at) continue;
        seen[p] = at;
        switch (op[p]) {
          case OP_MATCH:
          case OP_CHAR:
            pcs[len] = p;
            starts[len++] = begin;
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
      return len;
    };

    for (let at = from; ; at++) {
      // Leftmost: a new match may start here only while none has been found (lowest priority, after the others).
      if (!found) clen = add(cpc, cstart, clen, start, at, at);
      if (clen === 0 && found) return found;
      const c = text[at];
      nlen = 0;
      for (let i = 0; i < clen; i++) {
        const p = cpc[i] as number;
        if (op[p] === OP_MATCH) {
          // First in priority: this match stands; threads of lower priority are dropped.
          found = [cstart[i] as number, at];
          if (any) return found;
          break;
        }
        if (c !== undefined && (matchers[a[p] as number] as CharMatcher).has(c)) {
          nlen = add(npc, nstart, nlen, b[p] as number, at + 1, cstart[i] as number);
        }
      }
      if (c === undefined) return found;
      [cpc, npc] = [npc, cpc];
      [cstart, nstart] = [nstart, cstart];
      clen = nlen;
    }
  };

  return {
    test(s: string): boolean {
      return run(Array.from(s), 0, true) !== undefined;
    },
    exec(s: string, from = 0): [number, number] | null {
      const text = Array.from(s);
      // UTF-16 offset of every code point boundary.
      const offsets = new Array<number>(text.length + 1);
      offsets[0] = 0;
      for (let i = 0; i < text.length; i++) offsets[i + 1] = (offsets[i] as number) + (text[i] as string).length;
      let cpFrom = 0;
      while (cpFrom < text.length && (offsets[cpFrom] as number) < from) cpFrom++;
      const m = run(text, cpFrom, false);
      return m ? [offsets[m[0]] as number, offsets[m[1]] as number] : null;
    },
  };
}

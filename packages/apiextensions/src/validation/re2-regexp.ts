/**
 * Go's regexp (RE2 syntax) on JavaScript's RegExp. kube-apiserver compiles CRD patterns with Go's regexp; this
 * translates the RE2 syntax to an equivalent `u`-mode RegExp and refuses what RE2 refuses, with Go's error text
 * (`error parsing regexp: missing argument to repetition operator: `+``). RE2 has no backreferences or
 * lookaround, so whether a string matches does not depend on the engine's strategy; only the syntax differs:
 * Go's `.` excludes only \n, `\s` is ASCII without \v, `$` without (?m) is the end of the text, `[]a]` starts
 * a class with `]`, `\#` and other escaped punctuation are literals, `a{` is a literal brace, flags may be set
 * mid-expression (`(?i)`), and assertions may be repeated. The translation is run by @kapi/cel's Pike VM
 * (compileLinearRegExp), in time linear in the input as Go's regexp, never by RegExp's backtracking (exponential
 * for patterns like `^(a|a?)+$`).
 */
import { compileLinearRegExp, type LinearRegExp, ProgramTooLargeError, RepeatCountError } from '@kapi/cel';

export class RE2SyntaxError extends Error {
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = 'RE2SyntaxError';
  }
}

const MISSING_REPEAT_ARG = 'missing argument to repetition operator';
const INVALID_REPEAT_OP = 'invalid nested repetition operator';
const INVALID_REPEAT_SIZE = 'invalid repeat count';
const MISSING_PAREN = 'missing closing )';
const UNEXPECTED_PAREN = 'unexpected )';
const MISSING_BRACKET = 'missing closing ]';
const INVALID_CHAR_RANGE = 'invalid character class range';
const INVALID_CHAR_CLASS = 'invalid character class';
const INVALID_ESCAPE = 'invalid escape sequence';
const INVALID_PERL_OP = 'invalid or unsupported Perl syntax';
const INVALID_NAMED_CAPTURE = 'invalid named capture';
const TRAILING_BACKSLASH = 'trailing backslash at end of expression';
const EXPRESSION_TOO_LARGE = 'expression too large';

const MAX_REPEAT = 1000;

type Range = [number, number];

const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Range[] = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
];

const POSIX: Record<string, Range[]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: WORD,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

function negate(ranges: Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

function cp(c: number): string {
  // Letters and digits as themselves; anything else as \u{…}, which `u` mode reads the same in and out of classes.
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return String.fromCharCode(c);
  return `\\u{${c.toString(16)}}`;
}

function rangesText(ranges: Range[]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? cp(lo) : `${cp(lo)}-${cp(hi)}`)).join('');
}

/** A Unicode class name as Go knows it (a general category, a script, or Any) in `u` mode, or undefined. */
function unicodeClass(name: string, negated: boolean): string | undefined {
  if (name === 'Any') return negated ? '[^\\u{0}-\\u{10ffff}]' : '[\\u{0}-\\u{10ffff}]';
  const p = negated ? 'P' : 'p';
  for (const candidate of /^[A-Z][a-z]?$/.test(name) ? [`\\${p}{${name}}`] : [`\\${p}{Script=${name}}`]) {
    try {
      new RegExp(candidate, 'u');
      return candidate;
    } catch {
      // not a class JavaScript knows: Go would not know it either
    }
  }
  return undefined;
}

interface Group {
  /** Modifier groups `(?i:` this group opened for a mid-expression `(?i)`, closed with it. */
  implicitCloses: number;
  flags: Flags;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

/** Translates an RE2 pattern; throws RE2SyntaxError with Go's message when Go's regexp.Compile would fail. */
export function translateRE2(pattern: string): string {
  const chars = [...pattern];
  let pos = 0;
  let out = '';
  const groups: Group[] = [];
  let flags: Flags = { i: false, m: false, s: false };
  let implicitCloses = 0;
  // The text of the last repetition operator when it directly precedes (Go refuses `a**`), else ''.
  let lastRepeat = '';
  let canRepeat = false;

  const rest = () => chars.slice(pos).join('');
  const peek = (k = 0) => chars[pos + k];

  const emitAtom = (s: string) => {
    out += s;
    canRepeat = true;
    lastRepeat = '';
  };

  const flagGroup = (f: Flags) => {
    const on = `${f.i ? 'i' : ''}`;
    const off = `${f.i ? '' : 'i'}`;
    return `(?${on}${off ? `-${off}` : ''}:`;
  };

  while (pos < chars.length) {
    const c = chars[pos] as string;
    switch (c) {
      case '(': {
        if (peek(1) === '?') {
          const parsed = parsePerlGroup(chars, pos, flags);
          if (parsed.kind === 'flags') {
            // (?i) applies to the rest of the enclosing group.
            flags = parsed.flags;
            out += flagGroup(flags);
            implicitCloses++;
            pos = parsed.end;
            canRepeat = false;
            lastRepeat = '';
            continue;
          }
          groups.push({ implicitCloses, flags });
          implicitCloses = 0;
          if (parsed.kind === 'scoped') {
            flags = parsed.flags;
            out += flagGroup(flags);
          } else {
            out += '(';
          }
          pos = parsed.end;
        } else {
          groups.push({ implicitCloses, flags });
          implicitCloses = 0;
          out += '(';
          pos++;
        }
        canRepeat = false;
        lastRepeat = '';
        continue;
      }
      case ')': {
        const g = groups.pop();
        if (!g) throw new RE2SyntaxError(UNEXPECTED_PAREN, pattern);
        out += ')'.repeat(implicitCloses);
        out += ')';
        implicitCloses = g.implicitCloses;
        flags = g.flags;
        pos++;
        canRepeat = true;
        lastRepeat = '';
        continue;
      }
      case '|':
        out += '|';
        pos++;
        canRepeat = false;
        lastRepeat = '';
        continue;
      case '*':
      case '+':
      case '?': {
        const start = pos;
        pos++;
        if (peek() === '?') pos++;
        const op = chars.slice(start, pos).join('');
        repeat(op, op);
        continue;
      }
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(rest());
        if (!m) {
          emitAtom(cp(0x7b));
          pos++;
          continue;
        }
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
        const start = pos;
        pos += [...m[0]].length;
        if (peek() === '?') pos++;
        const op = chars.slice(start, pos).join('');
        if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) throw new RE2SyntaxError(INVALID_REPEAT_SIZE, m[0]);
        repeat(op, op);
        continue;
      }
      case '.':
        emitAtom(flags.s ? '[\\u{0}-\\u{10ffff}]' : '[^\\n]');
        pos++;
        continue;
      case '^':
        emitAtom(flags.m ? '(?:(?<![^\\n]))' : '(?:^)');
        pos++;
        continue;
      case '$':
        emitAtom(flags.m ? '(?:(?![^\\n]))' : '(?:$)');
        pos++;
        continue;
      case '[': {
        const { text, end } = parseClass(chars, pos, pattern);
        emitAtom(text);
        pos = end;
        continue;
      }
      case '\\': {
        const { text, end } = parseEscapeOutside(chars, pos);
        emitAtom(text);
        pos = end;
        continue;
      }
      default:
        emitAtom(cp(c.codePointAt(0) as number));
        pos++;
    }
  }
  if (groups.length > 0) throw new RE2SyntaxError(MISSING_PAREN, pattern);
  out += ')'.repeat(implicitCloses);
  return out;

  function repeat(op: string, text: string): void {
    if (lastRepeat !== '') throw new RE2SyntaxError(INVALID_REPEAT_OP, lastRepeat + text);
    if (!canRepeat) throw new RE2SyntaxError(MISSING_REPEAT_ARG, text);
    out += op;
    lastRepeat = text;
  }
}

type PerlGroup = { kind: 'flags' | 'scoped'; flags: Flags; end: number } | { kind: 'capture'; end: number };

function parsePerlGroup(chars: string[], pos: number, current: Flags): PerlGroup {
  const text = chars.slice(pos).join('');
  // Named captures: (?P<name>re) and (?<name>re).
  if (text.startsWith('(?P<') || text.startsWith('(?<')) {
    const begin = text.startsWith('(?P<') ? 4 : 3;
    const close = text.indexOf('>');
    if (close < 0) throw new RE2SyntaxError(INVALID_NAMED_CAPTURE, text);
    const name = text.slice(begin, close);
    if (!/^[A-Za-z0-9_]+$/.test(name)) throw new RE2SyntaxError(INVALID_NAMED_CAPTURE, text.slice(0, close + 1));
    return { kind: 'capture', end: pos + [...text.slice(0, close + 1)].length };
  }
  const flags = { ...current };
  let negated = false;
  let sawFlag = false;
  for (let k = 2; k < chars.length - pos; k++) {
    const c = chars[pos + k] as string;
    switch (c) {
      case 'i':
      case 'm':
      case 's':
      case 'U':
        if (c !== 'U') flags[c] = !negated;
        sawFlag = true;
        break;
      case '-':
        if (negated) throw new RE2SyntaxError(INVALID_PERL_OP, chars.slice(pos, pos + k + 1).join(''));
        negated = true;
        sawFlag = false;
        break;
      case ':':
      case ')':
        if (negated && !sawFlag) throw new RE2SyntaxError(INVALID_PERL_OP, chars.slice(pos, pos + k + 1).join(''));
        if (c === ':' && !sawFlag && !negated) return { kind: 'scoped', flags, end: pos + k + 1 };
        return { kind: c === ':' ? 'scoped' : 'flags', flags, end: pos + k + 1 };
      default:
        throw new RE2SyntaxError(INVALID_PERL_OP, chars.slice(pos, pos + k + 1).join(''));
    }
  }
  throw new RE2SyntaxError(MISSING_PAREN, chars.join(''));
}

/** An escape outside a class: a literal, a class (\d, \pL) or an assertion (\b, \A, \z). */
function parseEscapeOutside(chars: string[], pos: number): { text: string; end: number } {
  const c = chars[pos + 1];
  if (c === undefined) throw new RE2SyntaxError(TRAILING_BACKSLASH, '');
  switch (c) {
    case 'b':
      return { text: '(?:\\b)', end: pos + 2 };
    case 'B':
      return { text: '(?:\\B)', end: pos + 2 };
    case 'A':
      return { text: '(?:^)', end: pos + 2 };
    case 'z':
      return { text: '(?:$)', end: pos + 2 };
    case 'Q': {
      const text = chars.slice(pos + 2).join('');
      const endQ = text.indexOf('\\E');
      const lit = endQ < 0 ? text : text.slice(0, endQ);
      const litChars = [...lit];
      return {
        text: litChars.length ? `(?:${litChars.map((x) => cp(x.codePointAt(0) as number)).join('')})` : '(?:)',
        end: pos + 2 + litChars.length + (endQ < 0 ? 0 : 2),
      };
    }
  }
  const cls = parseClassEscape(chars, pos);
  if (cls.ranges) return { text: `[${rangesText(cls.ranges)}]`, end: cls.end };
  if (cls.unicode) return { text: cls.unicode, end: cls.end };
  return { text: cp(cls.literal as number), end: cls.end };
}

interface ClassEscape {
  ranges?: Range[];
  /** A \p class, already in `u`-mode syntax. */
  unicode?: string;
  literal?: number;
  end: number;
}

/** Escapes valid both in and out of classes: Perl classes, \p classes, and literals. */
function parseClassEscape(chars: string[], pos: number): ClassEscape {
  const c = chars[pos + 1];
  if (c === undefined) throw new RE2SyntaxError(TRAILING_BACKSLASH, '');
  switch (c) {
    case 'd':
      return { ranges: DIGIT, end: pos + 2 };
    case 'D':
      return { ranges: negate(DIGIT), end: pos + 2 };
    case 'w':
      return { ranges: WORD, end: pos + 2 };
    case 'W':
      return { ranges: negate(WORD), end: pos + 2 };
    case 's':
      return { ranges: SPACE, end: pos + 2 };
    case 'S':
      return { ranges: negate(SPACE), end: pos + 2 };
    case 'p':
    case 'P': {
      let name: string;
      let end: number;
      if (chars[pos + 2] === '{') {
        const text = chars.slice(pos).join('');
        const close = text.indexOf('}');
        if (close < 0) throw new RE2SyntaxError(INVALID_CHAR_RANGE, text);
        name = text.slice(3, close);
        end = pos + [...text.slice(0, close + 1)].length;
      } else {
        const n = chars[pos + 2];
        if (n === undefined) throw new RE2SyntaxError(INVALID_CHAR_RANGE, chars.slice(pos).join(''));
        name = n;
        end = pos + 3;
      }
      let negated = c === 'P';
      let lookup = name;
      if (lookup.startsWith('^')) {
        negated = !negated;
        lookup = lookup.slice(1);
      }
      const unicode = unicodeClass(lookup, negated);
      if (!unicode) throw new RE2SyntaxError(INVALID_CHAR_RANGE, chars.slice(pos, end).join(''));
      return { unicode, end };
    }
    case 'a':
      return { literal: 7, end: pos + 2 };
    case 'f':
      return { literal: 12, end: pos + 2 };
    case 't':
      return { literal: 9, end: pos + 2 };
    case 'n':
      return { literal: 10, end: pos + 2 };
    case 'r':
      return { literal: 13, end: pos + 2 };
    case 'v':
      return { literal: 11, end: pos + 2 };
    case 'x': {
      const text = chars.slice(pos).join('');
      const braced = /^\\x\{([0-9A-Fa-f]+)\}/.exec(text);
      if (braced) {
        const v = Number.parseInt(braced[1] as string, 16);
        if (v > 0x10ffff) throw new RE2SyntaxError(INVALID_ESCAPE, braced[0]);
        return { literal: v, end: pos + braced[0].length };
      }
      const two = /^\\x([0-9A-Fa-f]{2})/.exec(text);
      if (two) return { literal: Number.parseInt(two[1] as string, 16), end: pos + 4 };
      throw new RE2SyntaxError(INVALID_ESCAPE, text.slice(0, Math.min(text.length, braced ? 0 : 4)));
    }
  }
  if (c >= '0' && c <= '7') {
    // A lone \1-\7 is a backreference, which RE2 lacks; \0 and \NN... are octal.
    const next = chars[pos + 2];
    if (c !== '0' && (next === undefined || next < '0' || next > '7')) throw new RE2SyntaxError(INVALID_ESCAPE, `\\${c}`);
    let k = pos + 1;
    let v = 0;
    for (let n = 0; n < 3 && chars[k] !== undefined && (chars[k] as string) >= '0' && (chars[k] as string) <= '7'; n++, k++)
      v = v * 8 + Number(chars[k]);
    return { literal: v, end: k };
  }
  const code = c.codePointAt(0) as number;
  if (code < 0x80 && !/[0-9A-Za-z]/.test(c)) return { literal: code, end: pos + 2 };
  throw new RE2SyntaxError(INVALID_ESCAPE, `\\${c}`);
}

/** A bracket class `[...]`, `]` first being a literal as in Go, POSIX `[:alpha:]` inside. */
function parseClass(chars: string[], pos: number, pattern: string): { text: string; end: number } {
  const start = pos;
  const missing = () => new RE2SyntaxError(MISSING_BRACKET, chars.slice(start).join(''));
  pos++;
  let negated = false;
  if (chars[pos] === '^') {
    negated = true;
    pos++;
  }
  const parts: string[] = [];
  let first = true;
  while (pos < chars.length && (chars[pos] !== ']' || first)) {
    const c = chars[pos] as string;
    // POSIX class [:name:] / [:^name:]
    if (c === '[' && chars[pos + 1] === ':') {
      const text = chars.slice(pos).join('');
      const close = text.indexOf(':]');
      if (close >= 0) {
        let name = text.slice(2, close);
        let neg = false;
        if (name.startsWith('^')) {
          neg = true;
          name = name.slice(1);
        }
        const ranges = POSIX[name];
        if (!ranges) throw new RE2SyntaxError(INVALID_CHAR_RANGE, text.slice(0, close + 2));
        parts.push(rangesText(neg ? negate(ranges) : ranges));
        pos += close + 2;
        first = false;
        continue;
      }
    }
    // One item: a single character or escape, maybe the low end of a range.
    const lo = classChar(chars, pos);
    if (lo === undefined) throw missing();
    if ('text' in lo) {
      parts.push(lo.text);
      pos = lo.end;
      first = false;
      continue;
    }
    pos = lo.end;
    if (chars[pos] === '-' && chars[pos + 1] !== undefined && chars[pos + 1] !== ']') {
      const hi = classChar(chars, pos + 1);
      if (hi === undefined) throw missing();
      if ('text' in hi) throw new RE2SyntaxError(INVALID_CHAR_RANGE, chars.slice(lo.start, hi.end).join(''));
      if (hi.code < lo.code) throw new RE2SyntaxError(INVALID_CHAR_RANGE, chars.slice(lo.start, hi.end).join(''));
      parts.push(`${cp(lo.code)}-${cp(hi.code)}`);
      pos = hi.end;
    } else {
      parts.push(cp(lo.code));
    }
    first = false;
  }
  if (pos >= chars.length) throw missing();
  void pattern;
  // An empty negated class cannot be written in Go (`[^]` needs a `]`), so parts is never empty here.
  return { text: `[${negated ? '^' : ''}${parts.join('')}]`, end: pos + 1 };
}

type ClassChar = { code: number; start: number; end: number } | { text: string; end: number };

function classChar(chars: string[], pos: number): ClassChar | undefined {
  const c = chars[pos];
  if (c === undefined) return undefined;
  if (c !== '\\') return { code: c.codePointAt(0) as number, start: pos, end: pos + 1 };
  const e = parseClassEscape(chars, pos);
  if (e.ranges) return { text: rangesText(e.ranges), end: e.end };
  if (e.unicode) {
    // \p{…} may stand inside a class as is; Any is a bracketed range list.
    return { text: e.unicode.startsWith('[') ? e.unicode.slice(e.unicode.startsWith('[^') ? 2 : 1, -1) : e.unicode, end: e.end };
  }
  return { code: e.literal as number, start: pos, end: e.end };
}

const cache = new Map<string, LinearRegExp | RE2SyntaxError>();

/**
 * Compiles an RE2 pattern (cached, as kube-openapi caches compiled patterns); throws RE2SyntaxError. The translation
 * is checked by RegExp and run by compileLinearRegExp, in time linear in the input as Go's regexp runs.
 */
export function compileRE2(pattern: string): LinearRegExp {
  let r = cache.get(pattern);
  if (r === undefined) {
    try {
      const source = translateRE2(pattern);
      new RegExp(source, 'u');
      r = compileLinearRegExp(source);
    } catch (e) {
      r =
        e instanceof RE2SyntaxError
          ? e
          : e instanceof RepeatCountError
            ? new RE2SyntaxError(INVALID_REPEAT_SIZE, e.op)
            : e instanceof ProgramTooLargeError
              ? new RE2SyntaxError(EXPRESSION_TOO_LARGE, pattern)
              : new RE2SyntaxError(INVALID_CHAR_CLASS, pattern);
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(pattern, r);
  }
  if (r instanceof RE2SyntaxError) throw r;
  return r;
}

/**
 * RE2 syntax (Go's regexp, which kube's CEL uses) compiled to a JavaScript RegExp. The two agree on the
 * common syntax; this translates what differs — leading flag groups `(?i)`, `(?P<name>…)`, `\z`, `\A`,
 * `\Q…\E`, POSIX classes `[[:alpha:]]`, one-letter Unicode classes `\pL` — and refuses what RE2 refuses
 * (look-around, back-references, possessive quantifiers) with Go's error texts, so a pattern that is
 * invalid on kube is invalid here too. RegExp checks the translation; linear-regexp runs it, in time linear in the
 * input as RE2 (JavaScript's engine backtracks: exponential time for patterns like `^(a|a?)+$`).
 */
import { compileLinearRegExp, type LinearRegExp, ProgramTooLargeError, RepeatCountError } from './linear-regexp.ts';

export class RegexSyntaxError extends Error {
  override readonly name = 'RegexSyntaxError';
}

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const cache = new Map<string, LinearRegExp>();
const CACHE_LIMIT = 256;

/** Compiles an RE2 pattern to a matcher that runs in linear time with Go's leftmost-first matches. */
export function compileRE2(pattern: string): LinearRegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  const re = translate(pattern);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, re);
  return re;
}

function fail(reason: string, what: string): never {
  throw new RegexSyntaxError(`error parsing regexp: ${reason}: \`${what}\``);
}

function translate(pattern: string): LinearRegExp {
  let flags = 'gu';
  let i = 0;
  // A leading (?flags) applies to the whole pattern, the common case; elsewhere it needs a scoped group.
  const leading = /^\(\?([imsU]+)\)/.exec(pattern);
  if (leading) {
    for (const f of leading[1] as string) {
      if (f === 'U') fail('invalid or unsupported Perl syntax', '(?U');
      if (!flags.includes(f)) flags += f;
    }
    i = leading[0].length;
  }
  let out = '';
  let depth = 0;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === '\\') {
      const [js, next] = escapeAt(pattern, i, false);
      out += js;
      i = next;
    } else if (c === '[') {
      const [js, next] = classAt(pattern, i);
      out += js;
      i = next;
    } else if (c === '(') {
      if (pattern[i + 1] === '?') {
        const rest = pattern.slice(i);
        const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
        if (named) {
          out += `(?<${named[1]}>`;
          i += named[0].length;
        } else if (rest.startsWith('(?:')) {
          out += '(?:';
          i += 3;
        } else {
          const scoped = /^\(\?([ims]*)(?:-([ims]*))?:/.exec(rest);
          if (scoped) {
            out += scoped[0];
            i += scoped[0].length;
          } else fail('invalid or unsupported Perl syntax', rest.slice(0, 3));
        }
      } else {
        out += '(';
        i++;
      }
      depth++;
    } else if (c === ')') {
      if (depth === 0) fail('unexpected )', pattern);
      depth--;
      out += ')';
      i++;
    } else if ((c === '+' || c === '*' || c === '?' || c === '}') && pattern[i + 1] === '+' && c !== '?') {
      fail('invalid nested repetition operator', `${c}+`);
    } else {
      out += c;
      i++;
    }
  }
  if (depth > 0) fail('missing closing )', pattern);
  try {
    new RegExp(out, flags);
  } catch (e) {
    throw new RegexSyntaxError(`error parsing regexp: ${(e as Error).message}`);
  }
  try {
    return compileLinearRegExp(out, { i: flags.includes('i'), m: flags.includes('m'), s: flags.includes('s') });
  } catch (e) {
    if (e instanceof RepeatCountError) fail('invalid repeat count', e.op);
    if (e instanceof ProgramTooLargeError) fail('expression too large', pattern);
    throw e;
  }
}

/** One escape sequence at pattern[i] === '\\'; returns its JS form and the index after it. */
function escapeAt(pattern: string, i: number, inClass: boolean): [string, number] {
  const e = pattern[i + 1];
  if (e === undefined) fail('trailing backslash at end of expression', '');
  if (e >= '1' && e <= '9') fail('invalid escape sequence', `\\${e}`);
  if (!inClass && e === 'z') return ['(?![\\s\\S])', i + 2];
  if (!inClass && e === 'A') return ['(?<![\\s\\S])', i + 2];
  if (e === 'Q') {
    const end = pattern.indexOf('\\E', i + 2);
    const literal = pattern.slice(i + 2, end < 0 ? undefined : end);
    const js = [...literal].map((ch) => (/[A-Za-z0-9]/.test(ch) ? ch : `\\u{${(ch.codePointAt(0) as number).toString(16)}}`));
    return [js.join(''), end < 0 ? pattern.length : end + 2];
  }
  if (e === 'p' || e === 'P') {
    // \pL or \p{Greek}; JS names scripts as Script=…
    const braced = pattern[i + 2] === '{';
    const close = braced ? pattern.indexOf('}', i) : i + 2;
    const name = braced ? pattern.slice(i + 3, close) : pattern[i + 2];
    if (!name || close < 0) fail('invalid character class range', pattern.slice(i, i + 3));
    const negated = name.startsWith('^');
    const bare = negated ? name.slice(1) : name;
    const property = /^[A-Z][a-z]?$/.test(bare) || bare === 'Any' ? bare : `Script=${bare}`;
    const js = property === 'Any' ? '[\\s\\S]' : `\\${(e === 'P') !== negated ? 'P' : 'p'}{${property}}`;
    return [js, close + 1];
  }
  // a punctuation escape is the literal character (JS's u flag refuses identity escapes it does not know)
  if (!/[A-Za-z0-9]/.test(e)) return [`\\u{${(e.codePointAt(0) as number).toString(16)}}`, i + 2];
  if ('bBdDwWsSnrtf'.includes(e)) return [`\\${e}`, i + 2];
  if (e === 'a') return ['\\x07', i + 2];
  if (e === 'v') return ['\\x0B', i + 2];
  if (e === '0') return ['\\x00', i + 2];
  if (e === 'x') {
    if (pattern[i + 2] === '{') {
      const close = pattern.indexOf('}', i + 3);
      if (close < 0) fail('invalid escape sequence', pattern.slice(i));
      return [`\\u{${pattern.slice(i + 3, close)}}`, close + 1];
    }
    if (!isHexDigit(pattern[i + 2]) || !isHexDigit(pattern[i + 3])) fail('invalid escape sequence', pattern.slice(i, i + 4));
    return [pattern.slice(i, i + 4), i + 4];
  }
  fail('invalid escape sequence', `\\${e}`);
}

const isHexDigit = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** A character class at pattern[i] === '['. */
function classAt(pattern: string, start: number): [string, number] {
  let i = start + 1;
  let out = '[';
  if (pattern[i] === '^') {
    out += '^';
    i++;
  }
  let first = true;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === ']' && !first) return [`${out}]`, i + 1];
    if (c === ']') {
      // RE2 reads a leading ] as a literal
      out += '\\]';
      i++;
    } else if (c === '[' && pattern[i + 1] === ':') {
      const m = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(i));
      const range = m ? POSIX[m[2] as string] : undefined;
      if (!m || range === undefined) fail('invalid character class range', pattern.slice(i, pattern.indexOf(']', i) + 1));
      // a negated POSIX class inside a class has no JS form; RE2 allows it, this refuses it plainly
      if (m[1]) fail('invalid or unsupported Perl syntax', m[0]);
      out += range;
      i += m[0].length;
    } else if (c === '\\') {
      const [js, next] = escapeAt(pattern, i, true);
      out += js;
      i = next;
    } else if (c === '[') {
      out += '\\[';
      i++;
    } else {
      out += c;
      i++;
    }
    first = false;
  }
  fail('missing closing ]', pattern.slice(start));
}

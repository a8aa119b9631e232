/**
 * Go's regexp, which kube uses for CEL's `matches`, `find` and `findAll` and for CRD `pattern`s, on re2js: a port
 * of RE2/J, itself a port of Go's regexp — the same RE2 syntax and error texts, leftmost-first matches, and time
 * linear in the input (JavaScript's RegExp backtracks: exponential time for patterns like `^(a|a?)+$`). This file
 * only fits its exceptions to Go's error text and keeps compiled patterns. One known difference: re2js calls a
 * program over 1,398,101 instructions "expression too large", Go only over 3,355,443 (a pattern of ~10 KB of
 * `a{1000}`s); the limit is internal to re2js.
 */
import { RE2JS, RE2JSSyntaxException } from 're2js';

/** A pattern Go's regexp.Compile refuses; the message is Go's (`error parsing regexp: missing closing ): `(a``). */
export class RE2SyntaxError extends Error {
  override readonly name = 'RE2SyntaxError';
}

/** A compiled RE2 pattern, with Go's method semantics. */
export interface RE2Regexp {
  /** regexp.MatchString: whether the pattern matches anywhere in `s`. */
  test(s: string): boolean;
  /**
   * regexp.FindAllString(s, n), n < 0 for all: successive leftmost-first matches, an empty match right after the
   * previous match skipped. Positions are UTF-16 offsets stepping over whole code points.
   */
  findAll(s: string, n: number): string[];
}

const cache = new Map<string, RE2Regexp | RE2SyntaxError>();
const CACHE_LIMIT = 256;

/** Compiles an RE2 pattern as regexp.Compile does (cached); throws RE2SyntaxError where Go fails. */
export function compileRE2(pattern: string): RE2Regexp {
  let r = cache.get(pattern);
  if (r === undefined) {
    r = compile(pattern);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, r);
  }
  if (r instanceof RE2SyntaxError) throw r;
  return r;
}

function compile(pattern: string): RE2Regexp | RE2SyntaxError {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof RE2JSSyntaxException) return new RE2SyntaxError(goMessage(e, pattern));
    throw e;
  }
  const prog = re.re2();
  return {
    test: (s) => re.test(s),
    findAll: (s, n) => (prog.findAll(s, n) as string[] | null) ?? [],
  };
}

/**
 * Go's *syntax.Error text always ends in ": `expr`": the whole pattern for "expression too large" and "expression
 * nests too deeply", empty for a trailing backslash. re2js leaves the part out where it has no expression.
 */
function goMessage(e: RE2JSSyntaxException, pattern: string): string {
  const whole = e.error === 'expression too large' || e.error === 'expression nests too deeply';
  return `error parsing regexp: ${e.error}: \`${e.input ?? (whole ? pattern : '')}\``;
}

import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.ts';
import type { LinearRegExp } from '../regex/linear-regexp.ts';
import { compileRE2, RegexSyntaxError } from '../regex/re2.ts';
import { kubeName } from './overrides.ts';

/**
 * kube's regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll with Go's regexp
 * semantics — leftmost-first matches, an empty match right after a previous match skipped by findAll —
 * and "Illegal regex: …" for a pattern Go refuses. Also CEL's `matches`, which in cel-go reads RE2 too.
 */
export function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', (s: string, pattern: string) => findAll(s, pattern, 1n)[0] ?? '');
  env.registerFunction('string.findAll(string): list<string>', (s: string, pattern: string) => findAll(s, pattern, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
  // CEL's own matches, with RE2 syntax (see overrides.ts)
  env.registerFunction(`string.${kubeName('matches')}(string): bool`, matches);
  env.registerFunction('matches(string, string): bool', matches);
}

function matches(s: string, pattern: string): boolean {
  chargeCost(Math.ceil((s.length * pattern.length) / 4));
  let re: LinearRegExp;
  try {
    re = compileRE2(pattern);
  } catch (e) {
    // cel-go's text for an invalid pattern at run time
    if (e instanceof RegexSyntaxError) throw new Error(e.message);
    throw e;
  }
  return re.test(s);
}

function compile(pattern: string): LinearRegExp {
  try {
    return compileRE2(pattern);
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw new Error(`Illegal regex: ${e.message}`);
    throw e;
  }
}

/** regexp.FindAllString(s, n): n < 0 means all. */
function findAll(s: string, pattern: string, n: bigint): string[] {
  // kube charges string length × pattern length / 4 for regex functions (cost.go)
  chargeCost(Math.ceil((s.length * pattern.length) / 4));
  const re = compile(pattern);
  const limit = n < 0n ? s.length + 1 : Number(n);
  const out: string[] = [];
  let pos = 0;
  let prevMatchEnd = -1;
  while (out.length < limit && pos <= s.length) {
    const m = re.exec(s, pos);
    if (!m) break;
    const [start, end] = m;
    let accept = true;
    if (end === pos) {
      // an empty match right after the previous match is not a match (Go's allMatches)
      if (start === prevMatchEnd) accept = false;
      const cp = s.codePointAt(pos);
      pos += cp === undefined ? 1 : cp > 0xffff ? 2 : 1;
    } else pos = end;
    prevMatchEnd = end;
    if (accept) out.push(s.slice(start, end));
  }
  return out;
}

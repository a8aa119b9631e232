import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.ts';
import { compileRE2, type RE2Regexp, RE2SyntaxError } from '../regex/re2.ts';
import { kubeName } from './overrides.ts';

/**
 * kube's regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll are Go's FindString and
 * FindAllString (leftmost-first matches, an empty match right after a previous match skipped by findAll), with
 * "Illegal regex: …" for a pattern Go refuses. Also CEL's `matches`, which in cel-go reads RE2 too.
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
  let re: RE2Regexp;
  try {
    re = compileRE2(pattern);
  } catch (e) {
    // cel-go's text for an invalid pattern at run time
    if (e instanceof RE2SyntaxError) throw new Error(e.message);
    throw e;
  }
  return re.test(s);
}

/** regexp.FindAllString(s, n): n < 0 means all. */
function findAll(s: string, pattern: string, n: bigint): string[] {
  // kube charges string length × pattern length / 4 for regex functions (cost.go)
  chargeCost(Math.ceil((s.length * pattern.length) / 4));
  let re: RE2Regexp;
  try {
    re = compileRE2(pattern);
  } catch (e) {
    if (e instanceof RE2SyntaxError) throw new Error(`Illegal regex: ${e.message}`);
    throw e;
  }
  // Go converts the int64 to int; past the input's length every n means all.
  return re.findAll(s, n < 0n || n > BigInt(s.length) ? -1 : Number(n));
}

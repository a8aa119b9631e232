import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.ts';
import { compileRE2, RegexSyntaxError } from '../regex/re2.ts';

/**
 * `matches` with RE2 syntax, as cel-go has it. The CEL library's own `string.matches` compiles its pattern as
 * JavaScript (so `(?i)` fails and look-ahead passes, the reverse of kube) and cannot be replaced — it refuses a
 * second overload — so `compile` renames member calls of `matches` to MATCHES_RE2 in the parsed tree before
 * checking, and error texts name it `matches` again. The global form `matches(s, re)` is not built in and is
 * registered as is.
 */
export const MATCHES_RE2 = 'matchesRE2';

export function registerMatches(env: Environment): void {
  env.registerFunction(`string.${MATCHES_RE2}(string): bool`, matches);
  env.registerFunction('matches(string, string): bool', matches);
}

function matches(s: string, pattern: string): boolean {
  chargeCost(Math.ceil((s.length * pattern.length) / 4));
  let re: RegExp;
  try {
    re = compileRE2(pattern);
  } catch (e) {
    // cel-go's text for an invalid pattern at run time
    if (e instanceof RegexSyntaxError) throw new Error(e.message);
    throw e;
  }
  re.lastIndex = 0;
  return re.test(s);
}

interface Node {
  op?: unknown;
  args?: unknown;
}

/** Renames `x.matches(re)` calls in a parsed, not yet checked tree (shared with macro expansions). */
export function useRE2Matches(ast: unknown): void {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    const { op, args } = node as Node;
    if (typeof op !== 'string' || !Array.isArray(args)) continue;
    if (op === 'rcall' && args[0] === 'matches' && Array.isArray(args[2]) && args[2].length === 1) args[0] = MATCHES_RE2;
    stack.push(...args);
  }
}

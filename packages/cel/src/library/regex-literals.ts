import { compileRE2, RE2SyntaxError } from '../regex/re2.ts';
import { callNodes } from './ast-calls.ts';
import { kubeName } from './overrides.ts';

/**
 * Constant patterns of regex functions are compiled when the expression is compiled, as cel-go's regex
 * optimization does when kube builds a program: a rule with an invalid pattern is refused when it is written
 * (a CRD create), not when an object first reaches it.
 */
const MEMBER = new Set([kubeName('matches'), 'find', 'findAll']);

interface Node {
  op?: unknown;
  args?: unknown;
  range?: { start: number };
}

export interface RegexLiteralIssue {
  readonly message: string;
  /** Offset of the pattern literal in the expression. */
  readonly offset: number;
}

export function checkRegexLiterals(ast: unknown): RegexLiteralIssue | undefined {
  for (const { op, args } of callNodes(ast)) {
    let pattern: unknown;
    if (op === 'rcall' && MEMBER.has(args[0] as string) && Array.isArray(args[2])) pattern = args[2][0];
    else if (op === 'call' && args[0] === 'matches' && Array.isArray(args[1])) pattern = args[1][1];
    const literal = pattern as Node | undefined;
    if (literal?.op === 'value' && typeof literal.args === 'string') {
      try {
        compileRE2(literal.args);
      } catch (e) {
        if (e instanceof RE2SyntaxError) return { message: e.message, offset: literal.range?.start ?? 0 };
        throw e;
      }
    }
  }
  return undefined;
}

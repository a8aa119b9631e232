/** Where in an expression an issue is: 1-based line, 0-based column (cel-go prints column + 1). */
export interface CelIssue {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/**
 * An expression that does not parse or type-check. The message is cel-go's issues text, which kube
 * shows after "compilation failed: ":
 *
 *   ERROR: <input>:1:6: undefined field 'foo'
 *    | self.foo
 *    | .....^
 */
export class CelCompileError extends Error {
  override readonly name = 'CelCompileError';
  readonly expression: string;
  readonly issues: readonly CelIssue[];

  constructor(expression: string, issues: readonly CelIssue[]) {
    super(issues.map((issue) => formatIssue(expression, issue)).join('\n'));
    this.expression = expression;
    this.issues = issues;
  }
}

export type CelEvaluationErrorReason = 'CostLimitExceeded' | 'EvaluationError';

/** An evaluation that produced an error value or ran over its cost limit. */
export class CelEvaluationError extends Error {
  override readonly name = 'CelEvaluationError';
  readonly reason: CelEvaluationErrorReason;

  constructor(reason: CelEvaluationErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

function formatIssue(expression: string, issue: CelIssue): string {
  const head = `ERROR: <input>:${issue.line}:${issue.column + 1}: ${issue.message}`;
  const line = expression.split('\n')[issue.line - 1];
  if (line === undefined) return head;
  // cel-go marks the column with dots up to a caret
  return `${head}\n | ${line}\n | ${'.'.repeat(issue.column)}^`;
}

/** Line (1-based) and column (0-based, in code points) of an offset. */
export function locate(expression: string, offset: number): { line: number; column: number } {
  const before = expression.slice(0, Math.max(0, offset));
  const lines = before.split('\n');
  return { line: lines.length, column: [...(lines[lines.length - 1] ?? '')].length };
}

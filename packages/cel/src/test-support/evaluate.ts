import { CelEnvironment } from '../environment.ts';
import type { EvaluationResult } from '../program.ts';

const env = new CelEnvironment({ variables: { self: 'dyn' } });

/** Compiles (failing the test on a compile error) and evaluates an expression. */
export function run(expression: string, self?: unknown): EvaluationResult {
  const compiled = env.compile(expression);
  if (compiled.kind === 'error') throw compiled.error;
  return compiled.program.evaluate(self === undefined ? {} : { self });
}

/** The value of an expression; throws the evaluation error. */
export function value(expression: string, self?: unknown): unknown {
  const result = run(expression, self);
  if (result.kind === 'error') throw result.error;
  return result.value;
}

/** The evaluation error's message (fails if the expression evaluates). */
export function evalError(expression: string, self?: unknown): string {
  const result = run(expression, self);
  if (result.kind === 'value') throw new Error(`expected an evaluation error from ${expression}, got ${String(result.value)}`);
  return result.error.message;
}

/** The compile error's message (fails if the expression compiles). */
export function compileError(expression: string): string {
  const compiled = env.compile(expression);
  if (compiled.kind === 'program') throw new Error(`expected a compile error from ${expression}`);
  return compiled.error.message;
}

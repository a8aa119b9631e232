import type { Environment } from '@marcbachmann/cel-js';

/** What @kapi/cel uses of the CEL library's evaluator (not part of its public API; pinned to 8.0.0). */
export interface LibraryAstNode {
  op: string;
  evaluate(ev: LibraryEvaluator, ast: LibraryAstNode, ctx: unknown): unknown;
}

export interface LibraryOperator {
  readonly signature: string;
  readonly handler: (a: unknown, b: unknown, ast: unknown, ev: LibraryEvaluator) => unknown;
}

export interface LibraryRegistry {
  operatorCandidates(op: string): { declarations: LibraryOperator[] };
}

export interface LibraryEvaluator {
  readonly registry: LibraryRegistry;
  run(ast: LibraryAstNode, ctx: unknown): unknown;
}

/**
 * The evaluator of one environment. The library does not expose it, but every program hands it to its root node's
 * `evaluate`; a probe program whose root is swapped catches it. Tests (cost.test.ts, list-equality.test.ts) fail if an
 * upgrade of the library moves what is used here.
 */
export function libraryEvaluator(env: Environment): LibraryEvaluator {
  const probe = env.parse('0');
  probe.check();
  let evaluator: LibraryEvaluator | undefined;
  (probe.ast as unknown as LibraryAstNode).evaluate = (ev: LibraryEvaluator) => {
    evaluator = ev;
    return 0n;
  };
  probe({});
  if (!evaluator) throw new Error('@kapi/cel: the CEL library no longer evaluates through an Evaluator');
  return evaluator;
}

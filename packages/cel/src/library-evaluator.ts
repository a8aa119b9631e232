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

/** A type as the library declares it; `matchesValueType` is how it checks a value read from a field. */
export interface LibraryType {
  matchesValueType(value: unknown, ev: LibraryEvaluator): boolean;
}

/** A registered object type, as the evaluator finds it by its values' constructor. */
export interface LibraryObjectType {
  readonly fields?: Readonly<Record<string, LibraryType>>;
}

export interface LibraryRegistry {
  operatorCandidates(op: string): { declarations: LibraryOperator[] };
  readonly objectTypesByConstructor: Map<unknown, LibraryObjectType>;
}

export interface LibraryEvaluator {
  readonly registry: LibraryRegistry;
  run(ast: LibraryAstNode, ctx: unknown): unknown;
}

/**
 * The evaluator of one environment. The library does not expose it, but every program hands it to its root node's
 * `evaluate`; a probe program whose root is swapped catches it. Tests (cost.test.ts, typed-lists.test.ts,
 * nullable-fields.test.ts) fail if an upgrade of the library moves what is used here.
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

import type { LibraryAstNode, LibraryEvaluator } from './library-evaluator.ts';

/** kube's per-expression runtime cost limit (k8s.io/apiserver/pkg/apis/cel/config.go PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;

/** cel-go's text when a program's actual cost passes its limit; kube shows it to users. */
export const COST_LIMIT_EXCEEDED_MESSAGE = 'operation cancelled: actual cost limit exceeded';

/** Thrown inside an evaluation to stop it; Program turns it into a CelEvaluationError. */
export class CostLimitExceeded extends Error {
  override readonly name = 'CostLimitExceeded';
  constructor() {
    super(COST_LIMIT_EXCEEDED_MESSAGE);
  }
}

/**
 * The actual cost of one evaluation, approximating cel-go's runtime cost: one unit per evaluated
 * expression node (identifiers, field selections, calls, operators, each comprehension step), literals
 * free, and library functions charge their traversal (list size, string length) as kube's cost model does.
 * Once over the limit it stays over: an error that CEL's `||`/`&&` would absorb cannot undo a cancellation.
 */
export class CostTracker {
  cost = 0;
  exceeded = false;
  readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  add(units: number): void {
    // after a cancellation the library may still step through a comprehension (errors are values
    // there); those steps throw at once without counting
    if (this.exceeded) throw new CostLimitExceeded();
    this.cost += units;
    if (this.cost > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceeded();
    }
  }
}

// Evaluation is synchronous, so the tracker of the evaluation in progress can live in one slot;
// library functions charge it without it being threaded through the CEL library's call path.
let active: CostTracker | undefined;

/** Charges the evaluation in progress (no-op outside one). */
export function chargeCost(units: number): void {
  active?.add(units);
}

export function withCostTracker<T>(tracker: CostTracker, evaluate: () => T): T {
  const previous = active;
  active = tracker;
  try {
    return evaluate();
  } finally {
    active = previous;
  }
}

/**
 * Counts node evaluations in one environment. @marcbachmann/cel-js has no cost hook, but every child
 * node is evaluated through its Evaluator's `run`; that `run` is wrapped, on this environment's evaluator only. Pinned to the library's version (8.0.0);
 * cost.test.ts fails if an upgrade moves the hook.
 */
export function instrumentCost(evaluator: LibraryEvaluator): void {
  const run = evaluator.run;
  evaluator.run = function (this: LibraryEvaluator, ast: LibraryAstNode, ctx: unknown) {
    if (active !== undefined && ast.op !== 'value') active.add(1);
    return run.call(this, ast, ctx);
  };
}

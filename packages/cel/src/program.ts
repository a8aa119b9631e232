import type { Environment } from '@marcbachmann/cel-js';
import type { CelType } from './cel-type.ts';
import { COST_LIMIT_EXCEEDED_MESSAGE, CostLimitExceeded, CostTracker, PER_CALL_LIMIT, withCostTracker } from './cost.ts';
import { CelEvaluationError } from './errors.ts';
import { userNames } from './library/overrides.ts';
import { toCel } from './values.ts';

export interface EvaluateOptions {
  /** The most this evaluation may cost; kube's per-expression limit (PER_CALL_LIMIT) unless given. */
  readonly costLimit?: number;
}

/**
 * What an evaluation gave, with its actual cost either way (callers keep a budget across many
 * evaluations, as kube does per object). Values are CEL's: int is bigint, uint UnsignedInt, double number,
 * lists arrays, maps objects or Maps, timestamps Dates.
 */
export type EvaluationResult =
  | { readonly kind: 'value'; readonly value: unknown; readonly cost: number }
  | { readonly kind: 'error'; readonly error: CelEvaluationError; readonly cost: number };

type Parsed = ReturnType<Environment['parse']>;

/**
 * Variable values converted to CEL values once (`Program.prepare`), for evaluating several programs that declare
 * the variables with the same types (admission evaluates a policy's expressions against one request).
 */
export class PreparedActivation {
  readonly values: Readonly<Record<string, unknown>>;
  constructor(values: Readonly<Record<string, unknown>>) {
    this.values = values;
  }
}

/** A compiled, type-checked expression. Made by CelEnvironment.compile. */
export class Program {
  readonly expression: string;
  /** The type the checker inferred, e.g. `bool`. */
  readonly outputType: string;
  readonly #parsed: Parsed;
  readonly #variables: Readonly<Record<string, CelType>>;
  readonly #rootCost: number;

  constructor(expression: string, parsed: Parsed, variables: Readonly<Record<string, CelType>>, outputType: string) {
    this.expression = expression;
    this.outputType = outputType;
    this.#parsed = parsed;
    this.#variables = variables;
    // the root node is evaluated directly, not through the instrumented path
    this.#rootCost = (parsed.ast as { op?: string }).op === 'value' ? 0 : 1;
  }

  /** Converts variable values by this program's declared types, once, for `evaluate` here and in like programs. */
  prepare(activation: Readonly<Record<string, unknown>>): PreparedActivation {
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(activation)) {
      if (value !== undefined) values[name] = toCel(value, this.#variables[name]);
    }
    return new PreparedActivation(values);
  }

  /**
   * Evaluates with the given variable values (JSON-shaped; converted to CEL values by their declared types), or with
   * values `prepare`d already.
   */
  evaluate(activation: Readonly<Record<string, unknown>> | PreparedActivation = {}, options: EvaluateOptions = {}): EvaluationResult {
    const context: Record<string, unknown> =
      activation instanceof PreparedActivation ? { ...activation.values } : (this.prepare(activation).values as Record<string, unknown>);
    // a declared optional without a value is optional.none()
    for (const [name, type] of Object.entries(this.#variables)) {
      if (context[name] === undefined && typeof type !== 'string' && type.kind === 'optional') context[name] = toCel(undefined, type);
    }
    const tracker = new CostTracker(options.costLimit ?? PER_CALL_LIMIT);
    try {
      const value = withCostTracker(tracker, () => {
        tracker.add(this.#rootCost);
        return this.#parsed(context);
      });
      if (tracker.exceeded) return this.#costExceeded(tracker);
      return { kind: 'value', value, cost: tracker.cost };
    } catch (e) {
      if (tracker.exceeded || e instanceof CostLimitExceeded) return this.#costExceeded(tracker);
      return { kind: 'error', error: new CelEvaluationError('EvaluationError', runtimeMessage(e), { cause: e }), cost: tracker.cost };
    }
  }

  /** Whether the expression names the variable (kube: a rule that uses `oldSelf` is a transition rule). */
  references(variable: string): boolean {
    const stack: unknown[] = [this.#parsed.ast];
    while (stack.length > 0) {
      const node = stack.pop();
      if (Array.isArray(node)) stack.push(...node);
      else if (typeof node === 'object' && node !== null) {
        const { op, args } = node as { op?: unknown; args?: unknown };
        if (op === 'id' && args === variable) return true;
        if (Array.isArray(args)) stack.push(...args);
        else if (typeof args === 'object') stack.push(args);
      }
    }
    return false;
  }

  #costExceeded(tracker: CostTracker): EvaluationResult {
    return { kind: 'error', error: new CelEvaluationError('CostLimitExceeded', COST_LIMIT_EXCEEDED_MESSAGE), cost: tracker.cost };
  }
}

/** The error's text without the library's source excerpt; cel-go's wording where it differs only in case. */
function runtimeMessage(e: unknown): string {
  const error = e as { summary?: string; message?: string };
  const text = userNames(error.summary ?? error.message ?? String(e));
  return (
    text
      .replace(/^No such key: /, 'no such key: ')
      .replace(/^Unknown variable: /, 'no such attribute(s): ')
      .replace(/^integer overflow: .*$/s, 'integer overflow')
      // cel-go says only this much (kube matches the prefix), and prints a list index out of range so
      .replace(/^no such overload: .*$/s, 'no such overload')
      .replace(/^no such key: index out of bounds, index (-?\d+)\b.*$/s, 'index out of bounds: $1')
      .replace(/^Unsigned integer overflow$/, 'unsigned integer overflow')
  );
}

import type { KubeObject } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import type { AdmissionAttributes } from '../attributes.ts';
import { AdmissionCompiler, type CompiledExpression } from './compiler.ts';
import { AdmissionEvaluation, type AdmissionInput } from './evaluation.ts';

export interface MatchConditionResult {
  readonly matches: boolean;
  /** The name of the first condition that evaluated to false. */
  readonly failedCondition?: string;
  /** Some condition failed to compile or evaluate and none was false: the caller's failurePolicy decides. */
  readonly error?: Error;
}

/** One webhook's or policy's compiled `matchConditions` (kube's matchconditions.Matcher). */
export class CompiledMatchConditions {
  readonly #conditions: readonly { readonly name: string; readonly compiled: CompiledExpression }[];

  constructor(conditions: readonly { readonly name: string; readonly expression: string }[], compiler: AdmissionCompiler) {
    this.#conditions = conditions.map((c) => ({ name: c.name, compiled: compiler.compile(c.expression, ['bool'], { authorizer: true }) }));
  }

  /** The compile errors, in kube's words (`compilation failed: ERROR: <input>:1:1: …`). */
  get errors(): string[] {
    return this.#conditions.flatMap((c) => (c.compiled.error ? [c.compiled.error] : []));
  }

  /**
   * kube's Matcher.Match: the first condition that is false means no match; otherwise any error (compile or
   * runtime) is returned for the failure policy to decide; otherwise a match. A spent budget is an error at once.
   */
  async match(evaluation: AdmissionEvaluation): Promise<MatchConditionResult> {
    const errors: string[] = [];
    for (const { name, compiled } of this.#conditions) {
      const outcome = await evaluation.evaluate(compiled);
      if (outcome.kind === 'budget') return { matches: false, error: new Error(outcome.message) };
      if (outcome.kind === 'error') errors.push(outcome.message);
      else if (outcome.value === false) return { matches: false, failedCondition: name };
      else if (outcome.value !== true) errors.push(`expression '${compiled.expression}' resulted in a non-boolean value`);
    }
    if (errors.length > 0) return { matches: false, error: new Error(aggregate(errors)) };
    return { matches: true };
  }
}

/** utilerrors.NewAggregate's text: one error as itself, several as `[a, b]`. */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? (messages[0] as string) : `[${messages.join(', ')}]`;
}

export interface MatchConditionsOptions {
  /** `params` is declared (a policy with a paramKind). */
  readonly params?: boolean;
  /** Answers `authorizer` checks; without one, a check answers NoOpinion with an error. */
  readonly authorizer?: Authorizer;
}

export interface MatchConditions {
  readonly errors: string[];
  match(
    attrs: AdmissionAttributes,
    extra?: { readonly params?: unknown; readonly namespaceObject?: KubeObject | null } & Partial<
      Pick<AdmissionInput, 'object' | 'oldObject' | 'equivalent'>
    >,
  ): Promise<MatchConditionResult>;
}

const NO_AUTHORIZER: Authorizer = {
  authorize: async () => {
    throw new Error('no authorizer');
  },
};

/**
 * Compiles match conditions for a webhook (or anything else with its own evaluation): `match` builds the request's
 * activation (object, oldObject, request, params, namespaceObject, authorizer) and evaluates them as kube does.
 */
export function compileMatchConditions(
  conditions: readonly { readonly name: string; readonly expression: string }[],
  opts: MatchConditionsOptions = {},
): MatchConditions {
  const compiled = new CompiledMatchConditions(conditions, new AdmissionCompiler({ params: opts.params === true }));
  return {
    errors: compiled.errors,
    match: (attrs, extra = {}) =>
      compiled.match(new AdmissionEvaluation({ attrs, ...extra, authorizer: opts.authorizer ?? NO_AUTHORIZER })),
  };
}

import type { KubeObject } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import { CelAuthorizer, type EvaluationResult, PreparedActivation, type Program } from '@kapi/cel';
import type { AdmissionAttributes } from '../attributes.ts';
import { AuthorizationCache } from './authorizer.ts';
import type { CompiledExpression, CompiledVariable } from './compiler.ts';
import { admissionRequest, type EquivalentResource } from './request.ts';

/** kube's RuntimeCELCostBudget: what all expressions of one policy may cost on one request. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

/** kube's error once the budget is spent (the whole policy fails, subject to its failurePolicy). */
export const BUDGET_EXCEEDED_MESSAGE = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** What admission expressions see, besides the attributes. */
export interface AdmissionInput {
  readonly attrs: AdmissionAttributes;
  /** The object as the policy or webhook sees it (converted for an equivalent match); default attrs.object. */
  readonly object?: KubeObject | null;
  readonly oldObject?: KubeObject | null;
  /** The equivalent kind and resource a matcher chose (request.kind / request.resource). */
  readonly equivalent?: EquivalentResource;
  /** The param object; null when the binding has none (kube's `params` is null then). */
  readonly params?: unknown;
  /** The request's namespace, null for cluster-scoped requests. */
  readonly namespaceObject?: KubeObject | null;
  readonly authorizer?: Authorizer;
  /** Answers shared by every evaluation of the request (kube's caching authorizer); built from `authorizer` otherwise. */
  readonly authorization?: AuthorizationCache;
  /** The request's converted values, shared by the evaluations of one request (several policies). */
  readonly conversions?: RequestConversions;
}

/**
 * The CEL values of one request's object, oldObject, request and namespaceObject, converted once for all the
 * policies that see them alike (same object version, same matched resource), not once per policy.
 */
export class RequestConversions {
  readonly #entries: { readonly key: readonly unknown[]; readonly prepared: PreparedActivation }[] = [];

  get(key: readonly unknown[], convert: () => PreparedActivation): PreparedActivation {
    for (const entry of this.#entries) {
      if (entry.key.length === key.length && entry.key.every((k, i) => k === key[i])) return entry.prepared;
    }
    const prepared = convert();
    this.#entries.push({ key, prepared });
    return prepared;
  }
}

/** An outcome: a value, an error with kube's detail text, or the request's budget spent. */
export type Outcome =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'budget'; readonly message: string };

type Memo = { readonly kind: 'value'; readonly value: unknown } | { readonly kind: 'error'; readonly message: string };

/** Bounds the re-evaluations an expression gets while its authorization checks are answered. */
const MAX_AUTHZ_ROUNDS = 16;

/**
 * The evaluation of one request's admission expressions (kube's filter.ForInput with a composition context): the
 * activation is built once, `variables` are evaluated lazily and at most once each, authorization checks are asked
 * once, and every expression's cost is taken from one budget.
 */
export class AdmissionEvaluation {
  readonly #variables: ReadonlyMap<string, CompiledVariable>;
  readonly #base: Record<string, unknown>;
  readonly #baseKey: readonly unknown[];
  readonly #params: unknown;
  readonly #conversions: RequestConversions | undefined;
  readonly #authz: AuthorizationCache | undefined;
  readonly #celAuthorizer: CelAuthorizer | undefined;
  readonly #memo = new Map<string, Memo>();
  /** The activation converted to CEL values once: every program of a policy declares the variables alike. */
  #prepared: PreparedActivation | undefined;
  #remaining: number;

  constructor(input: AdmissionInput, variables: readonly CompiledVariable[] = [], budget = RUNTIME_CEL_COST_BUDGET) {
    const { attrs } = input;
    this.#variables = new Map(variables.map((v) => [v.name, v]));
    this.#remaining = budget;
    const object = input.object === undefined ? attrs.object : input.object;
    const oldObject = input.oldObject === undefined ? attrs.oldObject : input.oldObject;
    const namespaceObject = input.namespaceObject ?? null;
    const eq = input.equivalent;
    this.#baseKey = [
      object,
      oldObject,
      namespaceObject,
      eq?.kind.group,
      eq?.kind.version,
      eq?.kind.kind,
      eq?.resource.version,
      eq?.resource.resource,
    ];
    this.#base = { object, oldObject, request: admissionRequest(attrs, eq), namespaceObject };
    this.#params = input.params ?? null;
    this.#conversions = input.conversions;
    const authz = input.authorization ?? (input.authorizer ? new AuthorizationCache(input.authorizer, attrs.userInfo) : undefined);
    if (authz) {
      this.#authz = authz;
      this.#celAuthorizer = new CelAuthorizer(authz.decide, {
        group: attrs.resource.group,
        resource: attrs.resource.resource,
        subresource: attrs.subresource,
        namespace: attrs.namespace,
        name: attrs.name,
      });
    }
  }

  get remainingBudget(): number {
    return this.#remaining;
  }

  /**
   * Evaluates a compiled expression. A compile error gives `compilation error: <error>`, a runtime error
   * `expression '<expr>' resulted in error: <error>`, as kube's filter does.
   */
  async evaluate(compiled: CompiledExpression): Promise<Outcome> {
    if (!compiled.program)
      return { kind: 'error', message: `compilation error: ${compiled.error ?? 'unexpected internal error compiling expression'}` };
    let result = this.#run(compiled);
    for (let round = 0; this.#authz?.pending && round < MAX_AUTHZ_ROUNDS; round++) {
      await this.#authz.resolve();
      result = this.#run(compiled);
    }
    if (result.cost > this.#remaining) {
      this.#remaining = 0;
      return { kind: 'budget', message: BUDGET_EXCEEDED_MESSAGE };
    }
    this.#remaining -= result.cost;
    if (result.kind === 'error')
      return { kind: 'error', message: `expression '${compiled.expression}' resulted in error: ${result.error.message}` };
    return { kind: 'value', value: result.value };
  }

  #run(compiled: CompiledExpression): EvaluationResult {
    const program = compiled.program;
    if (!program) throw new Error('no program');
    return program.evaluate(this.#activation(program));
  }

  #activation(program: Program): PreparedActivation {
    if (!this.#prepared) {
      const own: Record<string, unknown> = { params: this.#params, variables: this.#lazyVariables() };
      if (this.#celAuthorizer) own.authorizer = this.#celAuthorizer;
      const base = this.#conversions
        ? this.#conversions.get(this.#baseKey, () => program.prepare(this.#base))
        : program.prepare(this.#base);
      this.#prepared = new PreparedActivation({ ...base.values, ...program.prepare(own).values });
    }
    return this.#prepared;
  }

  /** A Map (CEL reads maps through `get`) whose entries are evaluated when read, once (kube's lazy.MapValue). */
  #lazyVariables(): Map<string, unknown> {
    const map = new Map<string, unknown>();
    map.get = (name: string) => {
      const memo = this.#variable(name);
      if (memo === undefined) return undefined;
      if (memo.kind === 'error') throw new Error(memo.message);
      return memo.value;
    };
    map.has = (name: string) => this.#variables.has(name);
    return map;
  }

  #variable(name: string): Memo | undefined {
    const known = this.#memo.get(name);
    if (known) return known;
    const variable = this.#variables.get(name);
    if (!variable) return undefined;
    if (!variable.program) {
      const memo: Memo = { kind: 'error', message: `composited variable "${name}" fails to compile: ${variable.error}` };
      this.#memo.set(name, memo);
      return memo;
    }
    const misses = this.#authz?.misses ?? 0;
    const result = variable.program.evaluate(this.#activation(variable.program));
    this.#remaining -= result.cost;
    const memo: Memo =
      result.kind === 'value'
        ? { kind: 'value', value: result.value }
        : { kind: 'error', message: `composited variable "${name}" fails to evaluate: ${result.error.message}` };
    // a value computed from authorization answers not known yet is computed again once they are
    if ((this.#authz?.misses ?? 0) === misses) this.#memo.set(name, memo);
    return memo;
  }
}

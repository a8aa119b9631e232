import type { FailurePolicyType, ValidatingAdmissionPolicy } from '../admissionregistration/types.ts';
import { AdmissionCompiler, type CompiledExpression } from '../cel/compiler.ts';
import { CompiledMatchConditions } from '../cel/match-conditions.ts';

export interface CompiledValidation {
  readonly expression: CompiledExpression;
  readonly messageExpression?: CompiledExpression;
  readonly message?: string;
  readonly reason?: string;
}

export interface CompiledAuditAnnotation {
  readonly key: string;
  readonly valueExpression: CompiledExpression;
}

/** A policy's expressions, compiled once per version of the policy (kube's compilePolicy). */
export interface CompiledPolicy {
  readonly compiler: AdmissionCompiler;
  readonly failurePolicy: FailurePolicyType;
  readonly matchConditions?: CompiledMatchConditions;
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
}

/**
 * Compiles variables, matchConditions, validations (bool), messageExpressions (string, without `authorizer`) and
 * auditAnnotations (string or null) as kube's validating plugin does. Compile errors stay with each expression and
 * count as evaluation errors when the policy runs (subject to failurePolicy).
 */
export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  const compiler = new AdmissionCompiler({
    params: spec.paramKind !== undefined && spec.paramKind !== null,
    variables: spec.variables ?? [],
  });
  const conditions = spec.matchConditions ?? [];
  return {
    compiler,
    failurePolicy: spec.failurePolicy ?? 'Fail',
    ...(conditions.length > 0 ? { matchConditions: new CompiledMatchConditions(conditions, compiler) } : {}),
    validations: (spec.validations ?? []).map((v) => {
      const compiled: CompiledValidation = {
        expression: compiler.compile(v.expression, ['bool'], { authorizer: true }),
        ...(v.messageExpression ? { messageExpression: compiler.compile(v.messageExpression, ['string'], { authorizer: false }) } : {}),
        ...(v.message !== undefined ? { message: v.message } : {}),
        ...(v.reason !== undefined ? { reason: v.reason } : {}),
      };
      return compiled;
    }),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({
      key: a.key,
      valueExpression: compiler.compile(a.valueExpression, ['string', 'null_type'], { authorizer: true }),
    })),
  };
}

/**
 * Compiled policies by name, compiled again only when the policy changes: same uid and resourceVersion (or, for
 * objects without one, the same object) reuse the compilation.
 */
export class PolicyCompileCache {
  readonly #byName = new Map<
    string,
    { readonly policy: ValidatingAdmissionPolicy; readonly version: string; readonly compiled: CompiledPolicy }
  >();

  get(policy: ValidatingAdmissionPolicy): CompiledPolicy {
    const name = policy.metadata.name ?? '';
    const version = `${policy.metadata.uid ?? ''}/${policy.metadata.resourceVersion ?? ''}/${policy.metadata.generation ?? ''}`;
    const known = this.#byName.get(name);
    if (known && (known.policy === policy || (policy.metadata.resourceVersion !== undefined && known.version === version)))
      return known.compiled;
    const compiled = compilePolicy(policy);
    this.#byName.set(name, { policy, version, compiled });
    return compiled;
  }

  /** Forgets policies no longer served. */
  retain(names: ReadonlySet<string>): void {
    for (const name of this.#byName.keys()) if (!names.has(name)) this.#byName.delete(name);
  }
}

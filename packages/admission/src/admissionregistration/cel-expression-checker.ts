import { AdmissionCompiler } from '../cel/compiler.ts';
import type { ExpressionCheck, ExpressionChecker, ExpressionKind, ExpressionProblem } from './validation.ts';

/** What each kind of expression must evaluate to, and whether `authorizer` is declared (kube's ReturnTypes and OptionalVariableDeclarations). */
const KINDS: Readonly<Record<ExpressionKind, { returnTypes: readonly string[]; authorizer: boolean }>> = {
  matchCondition: { returnTypes: ['bool'], authorizer: true },
  validation: { returnTypes: ['bool'], authorizer: true },
  messageExpression: { returnTypes: ['string'], authorizer: false },
  auditAnnotation: { returnTypes: ['string', 'null_type'], authorizer: true },
  variable: { returnTypes: ['dyn'], authorizer: true },
};

/**
 * The ExpressionChecker kube-apiserver's validation amounts to: each expression compiled with the admission CEL
 * environment (`object`, `oldObject`, `request`, `namespaceObject`, `params` with a paramKind, `authorizer`, the
 * policy's earlier `variables`); a failure is an Invalid field error with cel-go's text. Compilers are reused for a
 * policy's expressions (the same params and variables).
 */
export function admissionExpressionChecker(): ExpressionChecker {
  let last: { key: string; compiler: AdmissionCompiler } | undefined;
  const compilerFor = (check: ExpressionCheck): AdmissionCompiler => {
    const variables = check.variables ?? [];
    const key = JSON.stringify([check.params, variables.map((v) => [v.name, v.expression])]);
    if (last?.key !== key) last = { key, compiler: new AdmissionCompiler({ params: check.params, variables }) };
    return last.compiler;
  };
  return (expression: string, check: ExpressionCheck): ExpressionProblem | undefined => {
    const kind = KINDS[check.kind];
    const compiled = compilerFor(check).compile(expression, kind.returnTypes, { authorizer: kind.authorizer });
    return compiled.error === undefined ? undefined : { type: 'Invalid', detail: compiled.error };
  };
}

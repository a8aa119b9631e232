import type { KubeObject } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import type { AdmissionAttributes } from '../attributes.ts';
import type { AuthorizationCache } from '../cel/authorizer.ts';
import { AdmissionEvaluation, BUDGET_EXCEEDED_MESSAGE, type RequestConversions } from '../cel/evaluation.ts';
import type { EquivalentResource } from '../cel/request.ts';
import type { CompiledPolicy } from './compiled-policy.ts';

/** kube's MaxEvaluatedMessageExpressionSizeBytes: a longer evaluated message falls back to `message`. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

export type DecisionEvaluation = 'admit' | 'deny' | 'error';

/** kube's PolicyDecision. `index` is the validation's index (for the validation_failure audit annotation). */
export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  readonly evaluation: DecisionEvaluation;
  readonly message: string;
  readonly reason?: string;
  readonly index: number;
}

/** kube's PolicyAuditAnnotation. */
export type AuditAnnotationResult =
  | { readonly action: 'publish'; readonly key: string; readonly value: string }
  | { readonly action: 'exclude'; readonly key: string }
  | { readonly action: 'error'; readonly key: string; readonly error: string };

export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

export interface ValidateInput {
  readonly attrs: AdmissionAttributes;
  readonly object: KubeObject | null;
  readonly oldObject: KubeObject | null;
  readonly equivalent?: EquivalentResource;
  readonly params: KubeObject | null;
  readonly namespaceObject: KubeObject | null;
  readonly authorizer?: Authorizer;
  /** The request's authorization answers, shared across policies. */
  readonly authorization?: AuthorizationCache;
  /** The request's converted values, shared across policies. */
  readonly conversions?: RequestConversions;
}

/**
 * kube's validator.Validate for one binding and one param: matchConditions (an error is one decision by the failure
 * policy; a false condition means nothing to validate), then every validation, its message (messageExpression,
 * else message, else `failed expression: <expr>`) and reason (default Invalid), then the audit annotations.
 */
export async function validatePolicy(compiled: CompiledPolicy, input: ValidateInput): Promise<ValidateResult> {
  const failAction = compiled.failurePolicy === 'Ignore' ? 'admit' : 'deny';
  const evaluation = new AdmissionEvaluation(
    {
      attrs: input.attrs,
      object: input.object,
      oldObject: input.oldObject,
      ...(input.equivalent ? { equivalent: input.equivalent } : {}),
      params: input.params,
      namespaceObject: input.namespaceObject,
      ...(input.authorizer ? { authorizer: input.authorizer } : {}),
      ...(input.authorization ? { authorization: input.authorization } : {}),
      ...(input.conversions ? { conversions: input.conversions } : {}),
    },
    compiled.compiler.variables,
  );
  const errorDecision = (message: string, index = 0): PolicyDecision => ({ action: failAction, evaluation: 'error', message, index });

  if (compiled.matchConditions) {
    const match = await compiled.matchConditions.match(evaluation);
    if (match.error) return { decisions: [errorDecision(match.error.message)], auditAnnotations: [] };
    if (!match.matches) return { decisions: [], auditAnnotations: [] };
  }

  const decisions: PolicyDecision[] = [];
  for (const [index, validation] of compiled.validations.entries()) {
    const outcome = await evaluation.evaluate(validation.expression);
    if (outcome.kind === 'budget') return { decisions: [errorDecision(outcome.message)], auditAnnotations: [] };
    if (outcome.kind === 'error') {
      decisions.push(errorDecision(outcome.message, index));
      continue;
    }
    if (outcome.value === true) {
      decisions.push({ action: 'admit', evaluation: 'admit', message: '', index });
      continue;
    }
    let message = '';
    if (validation.messageExpression) {
      const m = await evaluation.evaluate(validation.messageExpression);
      if (m.kind === 'budget') {
        decisions.push(errorDecision(`failed messageExpression: ${BUDGET_EXCEEDED_MESSAGE}`, index));
        continue;
      }
      if (m.kind === 'value' && typeof m.value === 'string') {
        message = m.value.trim();
        if (Buffer.byteLength(message) > MAX_EVALUATED_MESSAGE_EXPRESSION_BYTES || message.includes('\n')) message = '';
      }
    }
    if (message === '' && validation.message) message = validation.message.trim();
    if (message === '') message = `failed expression: ${validation.expression.expression.trim()}`;
    decisions.push({ action: 'deny', evaluation: 'deny', message, reason: validation.reason ?? 'Invalid', index });
  }

  const auditAnnotations: AuditAnnotationResult[] = [];
  const failAnnotation = compiled.failurePolicy === 'Ignore' ? 'exclude' : 'error';
  for (const annotation of compiled.auditAnnotations) {
    const outcome = await evaluation.evaluate(annotation.valueExpression);
    if (outcome.kind !== 'value') {
      auditAnnotations.push(
        failAnnotation === 'error'
          ? { action: 'error', key: annotation.key, error: outcome.message }
          : { action: 'exclude', key: annotation.key },
      );
    } else if (typeof outcome.value === 'string') {
      const value = outcome.value.trim();
      auditAnnotations.push(value === '' ? { action: 'exclude', key: annotation.key } : { action: 'publish', key: annotation.key, value });
    } else if (outcome.value === null) {
      auditAnnotations.push({ action: 'exclude', key: annotation.key });
    } else {
      auditAnnotations.push({
        action: 'error',
        key: annotation.key,
        error: `valueExpression '${annotation.valueExpression.expression}' resulted in unsupported return type: ${typeof outcome.value}. Return type must be either string or null.`,
      });
    }
  }
  return { decisions, auditAnnotations };
}

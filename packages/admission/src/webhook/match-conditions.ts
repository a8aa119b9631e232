import type { Authorizer } from '@kapi/authz';
import type { MatchCondition } from '../admissionregistration/types.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import { compileMatchConditions, type MatchConditionResult } from '../cel/match-conditions.ts';
import type { WebhookInvocation } from './admission-review.ts';

/** A webhook's compiled matchConditions (CEL, kube's matchconditions.Matcher). */
export interface CompiledMatchConditions {
  /**
   * Evaluates the conditions with `versioned`'s object and old object (in the invocation's version) and the request
   * as the webhook is called (request.kind/resource are the invocation's). A false condition means no match; an
   * error (compile or evaluation) is for the caller's failurePolicy.
   */
  match(attrs: AdmissionAttributes, versioned: AdmissionAttributes, invocation: WebhookInvocation): Promise<MatchConditionResult>;
}

/** Compiles a webhook's matchConditions once (kept by the webhook's accessor). */
export function compileWebhookMatchConditions(
  conditions: readonly MatchCondition[],
  authorizer: Authorizer | undefined,
): CompiledMatchConditions {
  const compiled = compileMatchConditions(conditions, authorizer ? { authorizer } : {});
  return {
    match: (attrs, versioned, invocation) =>
      compiled.match(attrs, {
        object: versioned.object,
        oldObject: versioned.oldObject,
        equivalent: { kind: invocation.kind, resource: invocation.resource },
      }),
  };
}

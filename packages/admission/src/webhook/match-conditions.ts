import type { Authorizer } from '@kapi/authz';
import type { MatchCondition } from '../admissionregistration/types.ts';
import type { AdmissionAttributes } from '../attributes.ts';

/** The outcome of a webhook's matchConditions on one request (kube's matchconditions.MatchResult). */
export interface MatchConditionsResult {
  matches: boolean;
  failedCondition?: string;
  error?: Error;
}

/** A webhook's compiled matchConditions. */
export interface CompiledMatchConditions {
  match(attrs: AdmissionAttributes): Promise<MatchConditionsResult>;
}

/**
 * Compiles a webhook's matchConditions (CEL). NOT IMPLEMENTED YET: waits for the shared CEL bindings
 * (../cel/match-conditions.ts); until then a webhook with matchConditions fails its match with an error, which
 * failurePolicy decides on (Fail: the request is refused; Ignore: the webhook is skipped).
 */
export function compileWebhookMatchConditions(
  conditions: readonly MatchCondition[],
  _authorizer: Authorizer | undefined,
): CompiledMatchConditions {
  const error = new Error(`matchConditions are not implemented yet (${conditions.map((c) => c.name).join(', ')})`);
  return { match: async () => ({ matches: false, error }) };
}

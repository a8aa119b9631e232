import type { UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RulesResult } from './authorizer.ts';

/** kube's reason from the AlwaysDeny authorizer. */
export const EVERYTHING_IS_FORBIDDEN = 'Everything is forbidden.';

/**
 * kube's AlwaysDeny authorization mode. As in kube it answers NoOpinion (not Deny) with the reason
 * "Everything is forbidden.", so in a union a later authorizer may still allow.
 */
export class AlwaysDenyAuthorizer implements Authorizer {
  async authorize(_attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return { decision: 'NoOpinion', reason: EVERYTHING_IS_FORBIDDEN };
  }

  /** As kube's alwaysDenyAuthorizer.RulesFor: no rules, complete. */
  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}

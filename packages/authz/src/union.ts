import type { UserInfo } from '@kapi/authn';
import { aggregateErrors } from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RulesResult } from './authorizer.ts';
import { rulesOf } from './rules.ts';

/**
 * kube's union authorizer (authorization/union): asks each authorizer in order; the first Allow or Deny
 * is the answer, NoOpinion moves on, and an authorizer that throws counts as NoOpinion with an error.
 * When nobody decided: if any threw, the errors are thrown together (kube's aggregate; the filter answers
 * 500), else NoOpinion with every non-empty reason joined by "\n".
 *
 * `rulesFor` is kube's unionAuthzRulesHandler: every authorizer's rules concatenated, incomplete if any is
 * (an authorizer without `rulesFor` is), and the errors aggregated.
 */
export function unionAuthorizer(...authorizers: readonly Authorizer[]): Authorizer {
  const list = [...authorizers];
  return {
    async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
      const errors: unknown[] = [];
      const reasons: string[] = [];
      for (const a of list) {
        let result: AuthorizationResult;
        try {
          result = await a.authorize(attrs);
        } catch (err) {
          errors.push(err);
          continue;
        }
        if (result.reason !== '') reasons.push(result.reason);
        if (result.decision === 'Allow' || result.decision === 'Deny') return result;
      }
      const err = aggregateErrors(errors);
      if (err) throw err;
      return { decision: 'NoOpinion', reason: reasons.join('\n') };
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
      const resourceRules: ResourceRule[] = [];
      const nonResourceRules: NonResourceRule[] = [];
      const errors: Error[] = [];
      let incomplete = false;
      for (const a of list) {
        const r = await rulesOf(a, user, namespace);
        if (r.incomplete) incomplete = true;
        if (r.error) errors.push(r.error);
        resourceRules.push(...r.resourceRules);
        nonResourceRules.push(...r.nonResourceRules);
      }
      const error = aggregateErrors(errors);
      return { resourceRules, nonResourceRules, incomplete, ...(error ? { error } : {}) };
    },
  };
}

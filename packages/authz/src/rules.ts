import type { UserInfo } from '@kapi/authn';
import type { Authorizer, RulesResult } from './authorizer.ts';

/** The evaluation error kapi reports for an authorizer that has no `rulesFor` (kube's webhook words it likewise). */
export const RULES_NOT_SUPPORTED = 'authorizer does not support user rule resolution';

/**
 * The rules of `authorizer` for `user` in `namespace`: its `rulesFor`, or, when it has none (or it throws), no rules,
 * `incomplete: true` and an error, as kube's authorizers that cannot enumerate answer.
 */
export async function rulesOf(authorizer: Authorizer, user: UserInfo, namespace: string): Promise<RulesResult> {
  if (!authorizer.rulesFor) return { resourceRules: [], nonResourceRules: [], incomplete: true, error: new Error(RULES_NOT_SUPPORTED) };
  try {
    return await authorizer.rulesFor(user, namespace);
  } catch (err) {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, error: err instanceof Error ? err : new Error(String(err)) };
  }
}

import { goQuote } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import type { AuthorizationRuleResolver } from '../rule-resolver.ts';
import type { PolicyRule } from '../types.ts';
import { compactRules, compactString } from './compact-rules.ts';
import { covers } from './covers.ts';

/**
 * kube's ConfirmNoEscalation: the user's own rules in `namespace` ("" for cluster-wide) must cover `rules`. Returns
 * null when they do, else kube's message (wrap it in a 403 with newForbidden):
 * `user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n`
 * then each missing rule's compact form, sorted, one per line, and `; resolution errors: [...]` when some of the
 * user's bindings could not be resolved.
 */
export function confirmNoEscalation(
  resolver: AuthorizationRuleResolver,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | null {
  const own = resolver.policyRulesFor(user, namespace);
  const { covered, missing } = covers(own.rules, rules);
  if (covered) return null;
  // kube's sets.String: distinct, sorted.
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort(byteOrder);
  const groups = `[${user.groups.map(goQuote).join(' ')}]`;
  let msg = `user ${goQuote(user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  // Go's %v of the []error holding the resolver's one aggregate error.
  if (own.error) msg += `; resolution errors: [${own.error.message}]`;
  return msg;
}

/** Go's string order (sort.Strings compares bytes; for UTF-16 text this is code point order). */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

import type { UserInfo } from '@kapi/authn';
import { aggregateErrors } from '@kapi/authn';
import type {
  AuthorizationAttributes,
  AuthorizationResult,
  Authorizer,
  NonResourceRule,
  ResourceRule,
  RulesResult,
} from '../authorizer.ts';
import type { RBACPolicySource } from './policy-source.ts';
import { ruleAllows } from './rule-matching.ts';
import { RBACRuleResolver } from './rule-resolver.ts';

/**
 * kube's RBAC authorizer (plugin/pkg/auth/authorizer/rbac): Allow when a rule of a role bound to the user (by name,
 * group or service account) allows the request, with the reason `RBAC: allowed by <binding>`; otherwise NoOpinion,
 * with `RBAC: <errors>` when some bindings referred to roles that could not be resolved. RBAC never denies.
 *
 * Only the bindings that name one of the user's subjects are looked at (the source's index), and the visit stops at
 * the first allowing rule.
 */
export class RBACAuthorizer implements Authorizer {
  readonly ruleResolver: RBACRuleResolver;

  constructor(source: RBACPolicySource) {
    this.ruleResolver = new RBACRuleResolver(source);
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    let reason = '';
    const errors: Error[] = [];
    this.ruleResolver.visitRulesFor(attrs.user, attrs.namespace, (source, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${source}`;
        return false;
      }
      if (err) errors.push(err);
      return true;
    });
    if (reason !== '') return { decision: 'Allow', reason };
    const err = aggregateErrors(errors);
    return { decision: 'NoOpinion', reason: err ? `RBAC: ${err.message}` : '' };
  }

  /** kube's RBACAuthorizer.RulesFor: the user's rules split into resource and non-resource rules; never incomplete. */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const { rules, error } = this.ruleResolver.policyRulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const r of rules) {
      if (r.resources && r.resources.length > 0) {
        resourceRules.push({
          verbs: r.verbs,
          apiGroups: r.apiGroups ?? [],
          resources: r.resources,
          ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
        });
      }
      if (r.nonResourceURLs && r.nonResourceURLs.length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
    return { resourceRules, nonResourceRules, incomplete: false, ...(error ? { error } : {}) };
  }
}

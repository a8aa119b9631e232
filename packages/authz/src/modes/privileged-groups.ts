import { SYSTEM_MASTERS, type UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RulesResult } from '../authorizer.ts';

/**
 * kube's authorizerfactory.NewPrivilegedGroups: members of any of `groups` may do anything (Allow, no reason); everyone
 * else NoOpinion. kube-apiserver puts one for `system:masters` before its configured modes.
 *
 * `rulesFor` gives members every verb on everything (kube lists no rules of its own here and leaves masters' rules to
 * RBAC's cluster-admin binding; what it allows is the same), and others nothing, complete.
 */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly #groups: ReadonlySet<string>;

  constructor(...groups: string[]) {
    this.#groups = new Set(groups);
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return this.#privileged(attrs.user) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
  }

  async rulesFor(user: UserInfo, _namespace: string): Promise<RulesResult> {
    if (!this.#privileged(user)) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }

  #privileged(user: UserInfo): boolean {
    return user.groups.some((g) => this.#groups.has(g));
  }
}

/** kube-apiserver's superuser authorizer: `system:masters` may do anything. */
export const systemMastersAuthorizer = (): PrivilegedGroupsAuthorizer => new PrivilegedGroupsAuthorizer(SYSTEM_MASTERS);

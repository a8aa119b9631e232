import { SYSTEM_MASTERS, type UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RulesResult } from '../authorizer.ts';

/**
 * kube's authorizerfactory.NewPrivilegedGroups: members of any of `groups` may do anything (Allow, no reason); everyone
 * else NoOpinion. kube-apiserver puts one for `system:masters` before its configured modes.
 *
 * `rulesFor` lists nothing, complete: kube's is no rule resolver and leaves masters' rules to RBAC's cluster-admin
 * binding (or AlwaysAllow's), so `kubectl auth can-i --list` prints those alone, as against kube-apiserver.
 */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly #groups: ReadonlySet<string>;

  constructor(...groups: string[]) {
    this.#groups = new Set(groups);
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return this.#privileged(attrs.user) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
  }

  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }

  #privileged(user: UserInfo): boolean {
    return user.groups.some((g) => this.#groups.has(g));
  }
}

/** kube-apiserver's superuser authorizer: `system:masters` may do anything. */
export const systemMastersAuthorizer = (): PrivilegedGroupsAuthorizer => new PrivilegedGroupsAuthorizer(SYSTEM_MASTERS);

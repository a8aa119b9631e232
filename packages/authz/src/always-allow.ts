import type { UserInfo } from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RulesResult } from './authorizer.ts';

/** kube's AlwaysAllow authorization mode: every request is allowed, with no reason. */
export class AlwaysAllowAuthorizer implements Authorizer {
  async authorize(_attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return { decision: 'Allow', reason: '' };
  }

  /** As kube's alwaysAllowAuthorizer.RulesFor: every verb on every resource of every group, and on every path. */
  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
}

import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authorizer.ts';

/** kube's AlwaysAllow authorization mode: every request is allowed, with no reason. */
export class AlwaysAllowAuthorizer implements Authorizer {
  async authorize(_attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return { decision: 'Allow', reason: '' };
  }
}

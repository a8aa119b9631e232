import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER } from './user-info.ts';

/**
 * kube's anonymous authenticator: every request is `system:anonymous` in `system:unauthenticated`.
 * Put it last, behind the real authenticators, so it only answers requests that carried no credential
 * (the authentication filter's `anonymous` option does exactly that).
 */
export class AnonymousAuthenticator implements Authenticator {
  async authenticate(_req: AuthenticationRequest): Promise<AuthenticationResult> {
    return { user: { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] } };
  }
}

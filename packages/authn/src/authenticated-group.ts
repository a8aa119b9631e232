import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER } from './user-info.ts';

/**
 * kube's AuthenticatedGroupAdder: every user the wrapped authenticator recognises also gets
 * `system:authenticated`, unless it is `system:anonymous` or already in `system:authenticated` or
 * `system:unauthenticated`. Failures and "no opinion" pass through unchanged.
 */
export function withAuthenticatedGroup(authenticator: Authenticator): Authenticator {
  return {
    async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
      const result = await authenticator.authenticate(req);
      if (!result) return null;
      const { user } = result;
      if (user.name === ANONYMOUS_USER) return result;
      if (user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) return result;
      return { ...result, user: { ...user, groups: [...user.groups, ALL_AUTHENTICATED] } };
    },
  };
}

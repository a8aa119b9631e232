import type { AuthenticationResult } from './authenticator.ts';
import type { TokenAuthenticator } from './bearer-token.ts';

/** The audiences in both lists, in the order of `a` (kube's Audiences.Intersect). */
export function intersectAudiences(a: readonly string[], b: readonly string[]): string[] {
  const set = new Set(b);
  return a.filter((x) => set.has(x));
}

/**
 * kube's authenticator.WrapAudienceAgnosticToken: a token authenticator whose tokens carry no audience (a token
 * file, bootstrap tokens, basic auth) is good for the server's own `implicit` audiences. When the request asks
 * for audiences, the token is "not mine" unless they meet the implicit ones, and a success names those in common.
 */
export function audienceAgnosticToken(implicit: readonly string[], tokens: TokenAuthenticator): TokenAuthenticator {
  const own = [...implicit];
  return {
    async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
      if (audiences === undefined) return tokens.authenticateToken(token);
      const auds = intersectAudiences(own, audiences);
      if (auds.length === 0) return null;
      const result = await tokens.authenticateToken(token);
      return result ? { ...result, audiences: auds } : null;
    },
  };
}

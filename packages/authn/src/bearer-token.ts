import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';

/**
 * kube's authenticator.Token: `null` if the token is not one it knows (or is not good for any of `audiences`);
 * throw if checking it failed. With `audiences`, a success names the ones the token is good for.
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null>;
}

/** kube's error when a bearer token was presented but no token authenticator accepted it. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/**
 * The token of an `Authorization: Bearer <token>` header as kube's bearertoken authenticator reads it:
 * surrounding space trimmed, scheme case-insensitive, split on single spaces (so `Bearer  x`, with two
 * spaces, has an empty token). `undefined` when there is no usable bearer token.
 */
export function bearerTokenOf(headers: AuthenticationRequest['headers']): string | undefined {
  const auth = (headers.authorization ?? '').trim();
  if (auth === '') return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || (parts[0] as string).toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] as string;
  return token === '' ? undefined : token;
}

/**
 * kube's bearertoken.Authenticator: no bearer token → no opinion; a bearer token the token authenticator
 * does not know → throws `invalid bearer token` (a credential of this kind that is wrong fails the request).
 */
export class BearerTokenAuthenticator implements Authenticator {
  readonly #tokens: TokenAuthenticator;

  constructor(tokens: TokenAuthenticator) {
    this.#tokens = tokens;
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const token = bearerTokenOf(req.headers);
    if (token === undefined) return null;
    const result = await this.#tokens.authenticateToken(token, req.audiences);
    if (!result) throw new Error(INVALID_BEARER_TOKEN);
    return result;
  }
}

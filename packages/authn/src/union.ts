import { aggregateErrors } from './aggregate-error.ts';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';

/**
 * kube's union authenticator (authentication/request/union): asks each authenticator in order and returns
 * the first success. An authenticator that throws does not stop the others; if none succeeds, the errors
 * are thrown together (kube's aggregate), and if none had an opinion the answer is `null`.
 *
 * @example
 * const authn = unionAuthenticator(TokenFileAuthenticator.fromFile('/etc/kapi/tokens.csv'), x509);
 */
export function unionAuthenticator(...authenticators: readonly Authenticator[]): Authenticator {
  const list = [...authenticators];
  return {
    async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
      const errors: unknown[] = [];
      for (const a of list) {
        try {
          const result = await a.authenticate(req);
          if (result) return result;
        } catch (err) {
          errors.push(err);
        }
      }
      const err = aggregateErrors(errors);
      if (err) throw err;
      return null;
    },
  };
}

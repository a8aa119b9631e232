import { createHash, type X509Certificate } from 'node:crypto';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import type { CABundle } from './ca-bundle.ts';
import { ClientCertificateVerifier } from './client-certificate-verifier.ts';
import { subjectValues } from './peer-certificates.ts';
import { CREDENTIAL_ID_KEY } from './service-account-claims.ts';
import type { UserInfo } from './user-info.ts';

export interface X509AuthenticatorOptions {
  /** The client CAs (kube's --client-ca-file); read on every request, so a reloading bundle takes effect at once. */
  ca: CABundle;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
  /** Who a verified chain stands for; default {@link commonNameUser}. `null` = no opinion. */
  user?: (chain: readonly X509Certificate[]) => UserInfo | null;
}

/** The subject attribute kube reads a user's UID from (AllowParsingUserUIDFromCertAuth, on by default since 1.34). */
export const UID_OID = '1.3.6.1.4.1.57683.2';

/**
 * kube's CommonNameUserConversion: user = the leaf's subject CN, groups = its O values, uid = its one
 * {@link UID_OID} value if any (several, or an empty one, is an error as in kube), and the credential id
 * `X509SHA256=<hex of the leaf's SHA-256>` in extra. A leaf without a CN has no opinion.
 */
export function commonNameUser(chain: readonly X509Certificate[]): UserInfo | null {
  const leaf = chain[0];
  const name = leaf ? (subjectValues(leaf, 'CN')[0] ?? '') : '';
  if (!leaf || name === '') return null;
  const uids = subjectValues(leaf, UID_OID);
  if (uids.length > 1) throw new Error(`expected 1 UID, but found multiple: [${uids.join(' ')}]`);
  if (uids[0] === '') throw new Error('UID cannot be an empty string');
  const id = `X509SHA256=${createHash('sha256').update(leaf.raw).digest('hex')}`;
  return { name, ...(uids[0] ? { uid: uids[0] } : {}), groups: subjectValues(leaf, 'O'), extra: { [CREDENTIAL_ID_KEY]: [id] } };
}

/**
 * kube's x509 authenticator (authentication/request/x509): a request whose TLS client sent no certificate gets no
 * opinion; one whose certificate does not verify against the client CAs (other CA, expired, not yet valid, an
 * extended key usage without client auth) fails with kube's "verifying certificate … failed" error; a verified
 * one is the user of its subject.
 *
 * @example
 * const x509 = new X509Authenticator({ ca: await DynamicCABundle.fromFile('/etc/kapi/client-ca.crt') });
 */
export class X509Authenticator implements Authenticator {
  readonly #verifier: ClientCertificateVerifier;
  readonly #user: (chain: readonly X509Certificate[]) => UserInfo | null;
  // The user of a remembered chain (the verifier hands back the same array while it remembers it).
  readonly #users = new WeakMap<readonly X509Certificate[], UserInfo | null>();

  constructor(options: X509AuthenticatorOptions) {
    this.#verifier = new ClientCertificateVerifier(options.ca, options.now);
    this.#user = options.user ?? commonNameUser;
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    const chain = this.#verifier.verify(req.socket);
    if (!chain) return null;
    let user = this.#users.get(chain);
    if (user === undefined) {
      user = this.#user(chain);
      this.#users.set(chain, user);
    }
    return user ? { user } : null;
  }
}

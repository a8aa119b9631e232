import { timingSafeEqual } from 'node:crypto';
import { type Clock, realClock } from '@kapi/apimachinery';
import { audienceAgnosticToken } from './audiences.ts';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import { BearerTokenAuthenticator, type TokenAuthenticator } from './bearer-token.ts';

/** A core/v1 Secret as stored: `data` values base64-encoded. Only what bootstrap tokens read. */
export interface BootstrapSecret {
  readonly type?: string;
  readonly metadata?: { readonly deletionTimestamp?: string | undefined };
  readonly data?: Readonly<Record<string, string>>;
}

/** How the authenticator reads a Secret in kube-system (e.g. from the Secret store's watch cache); `undefined` if absent. */
export interface BootstrapSecretGetter {
  getSecret(namespace: string, name: string): Promise<BootstrapSecret | undefined>;
}

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
const TOKEN_NAMESPACE = 'kube-system';
const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export interface BootstrapTokenOptions {
  /** The server's API audiences, which bootstrap tokens are implicitly good for. */
  apiAudiences?: readonly string[];
  clock?: Clock;
}

/**
 * kube's bootstrap token authenticator (plugin/pkg/auth/authenticator/token/bootstrap): a bearer token
 * `<id>.<secret>` (6 and 16 of [a-z0-9]) is the Secret `bootstrap-token-<id>` in kube-system, of type
 * bootstrap.kubernetes.io/token, whose `token-secret` matches (compared in constant time), not expired, not being
 * deleted, with `usage-bootstrap-authentication: "true"`. The user is `system:bootstrap:<id>` in
 * `system:bootstrappers` plus the Secret's `auth-extra-groups` (each must start with `system:bootstrappers:`, or the
 * token is refused). Anything else is "not mine", as kube's, so another authenticator may still take the token.
 *
 * @example
 * const bootstrap = new BootstrapTokenAuthenticator({ getSecret: async (ns, name) => secrets.get(ns, name) });
 */
export class BootstrapTokenAuthenticator implements Authenticator, TokenAuthenticator {
  readonly #secrets: BootstrapSecretGetter;
  readonly #clock: Clock;
  readonly #audiences: TokenAuthenticator;
  readonly #bearer: BearerTokenAuthenticator;

  constructor(secrets: BootstrapSecretGetter, options: BootstrapTokenOptions = {}) {
    this.#secrets = secrets;
    this.#clock = options.clock ?? realClock;
    this.#audiences = audienceAgnosticToken(options.apiAudiences ?? [], { authenticateToken: (t) => this.#check(t) });
    this.#bearer = new BearerTokenAuthenticator(this);
  }

  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    return this.#bearer.authenticate(req);
  }

  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
    return this.#audiences.authenticateToken(token, audiences);
  }

  async #check(token: string): Promise<AuthenticationResult | null> {
    const m = TOKEN_PATTERN.exec(token);
    if (!m) return null;
    const [, id, secretPart] = m as unknown as [string, string, string];
    const secret = await this.#secrets.getSecret(TOKEN_NAMESPACE, `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`);
    if (!secret || secret.metadata?.deletionTimestamp) return null;
    if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return null;
    const data = (key: string): string | undefined => {
      const v = secret.data?.[key];
      return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
    };
    const stored = Buffer.from(data('token-secret') ?? '');
    const given = Buffer.from(secretPart);
    // Lengths are public (16 characters); the bytes are compared in constant time.
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
    if (data('token-id') !== id) return null;
    const expiration = data('expiration');
    if (expiration !== undefined) {
      const at = Date.parse(expiration);
      // An expiration that does not parse counts as expired, as kube's isSecretExpired.
      if (Number.isNaN(at) || this.#clock.now() >= at) return null;
    }
    if (data('usage-bootstrap-authentication') !== 'true') return null;
    const groups = new Set([BOOTSTRAPPERS_GROUP]);
    for (const g of (data('auth-extra-groups') ?? '').split(',')) {
      const group = g.trim();
      if (group === '') continue;
      if (!EXTRA_GROUP_PATTERN.test(group)) return null;
      groups.add(group);
    }
    return { user: { name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups: [...groups].sort() } };
  }
}

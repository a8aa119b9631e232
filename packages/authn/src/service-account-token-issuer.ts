import { randomUUID } from 'node:crypto';
import { type Clock, realClock } from '@kapi/apimachinery';
import { type JSONWebKeySet, SignJWT } from 'jose';
import {
  type BoundObjectKind,
  type KubernetesClaim,
  LEGACY_SERVICE_ACCOUNT_ISSUER,
  type ObjectRef,
  serviceAccountUsername,
} from './service-account-claims.ts';
import { jwksOf, type ServiceAccountKeySet, serviceAccountKeySet, type VerificationKey } from './service-account-keys.ts';

/** kube's TokenRequest defaults and bounds (pkg/apis/authentication/validation): one hour; at least 10 minutes. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
export const MIN_TOKEN_EXPIRATION_SECONDS = 600;
/** kube refuses an expirationSeconds past 2^32. */
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;

export interface ServiceAccountTokenIssuerOptions {
  /** The `iss` of every token (kube's first --service-account-issuer), a URL such as https://kubernetes.default.svc.cluster.local. */
  issuer: string;
  /** The signing key (PEM) or a key set made with serviceAccountKeySet. */
  key: string | ServiceAccountKeySet;
  /** kube's --service-account-max-token-expiration: longer requests are cut to it. Default: none. */
  maxExpirationSeconds?: number;
  clock?: Clock;
}

/** What to issue a bound token for. */
export interface TokenClaimsRequest {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  /** The `aud` claim (a TokenRequest's spec.audiences, or the API audiences when it names none). */
  readonly audiences: readonly string[];
  /** Default 3600. */
  readonly expirationSeconds?: number;
  readonly boundObject?: { readonly kind: BoundObjectKind } & ObjectRef;
}

export interface IssuedToken {
  readonly token: string;
  /** RFC 3339, seconds precision (kube's status.expirationTimestamp). */
  readonly expirationTimestamp: string;
}

/**
 * kube's serviceaccount.JWTTokenGenerator with the bound-token claims of TokenRequest: signs with RS256 or ES256
 * (whatever the key is), `kid` = kube's key id, claims iss, sub (`system:serviceaccount:<ns>:<name>`), aud, exp, nbf,
 * iat, jti and `kubernetes.io` {namespace, serviceaccount {name, uid}, pod | secret | node {name, uid}}.
 *
 * @example
 * const issuer = new ServiceAccountTokenIssuer({ issuer: 'https://kubernetes.default.svc.cluster.local', key: pem });
 * const { token } = await issuer.issue({ namespace: 'default', serviceAccount: { name: 'x', uid }, audiences: [issuer.issuer] });
 */
export class ServiceAccountTokenIssuer {
  readonly issuer: string;
  readonly keys: ServiceAccountKeySet;
  readonly maxExpirationSeconds: number | undefined;
  readonly #clock: Clock;
  #jwks: Promise<JSONWebKeySet> | undefined;

  constructor(options: ServiceAccountTokenIssuerOptions) {
    if (!options.issuer) throw new Error('a service-account token issuer needs an issuer');
    this.issuer = options.issuer;
    this.keys = typeof options.key === 'string' ? serviceAccountKeySet(options.key) : options.key;
    this.maxExpirationSeconds = options.maxExpirationSeconds;
    this.#clock = options.clock ?? realClock;
  }

  /** The public keys that verify this issuer's tokens. */
  get verificationKeys(): readonly VerificationKey[] {
    return this.keys.verification;
  }

  /** The public keys as a JWK Set (what /openid/v1/jwks serves). */
  jwks(): Promise<JSONWebKeySet> {
    this.#jwks ??= jwksOf(this.keys.verification);
    return this.#jwks;
  }

  /** Signs a bound token. Expiration is not validated here (TokenRequest's validation is), only capped by the maximum. */
  async issue(req: TokenClaimsRequest): Promise<IssuedToken> {
    // A token without `aud` would read as a legacy one, good for any API audience: a bound token always names its own.
    if (req.audiences.length === 0) throw new Error('a bound service-account token needs at least one audience');
    const now = Math.floor(this.#clock.now() / 1000);
    let seconds = req.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
    if (this.maxExpirationSeconds !== undefined) seconds = Math.min(seconds, this.maxExpirationSeconds);
    const exp = now + seconds;
    const kube: KubernetesClaim = {
      namespace: req.namespace,
      serviceaccount: { name: req.serviceAccount.name, uid: req.serviceAccount.uid },
    };
    const bound = req.boundObject;
    if (bound) {
      const ref = { name: bound.name, uid: bound.uid };
      if (bound.kind === 'Pod') kube.pod = ref;
      else if (bound.kind === 'Secret') kube.secret = ref;
      else kube.node = ref;
    }
    const token = await new SignJWT({ 'kubernetes.io': kube })
      .setProtectedHeader({ alg: this.keys.signing.alg, kid: this.keys.signing.kid })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(req.namespace, req.serviceAccount.name))
      .setAudience([...req.audiences])
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.keys.signingKey);
    return { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  /**
   * A legacy token as kube's token controller wrote into Secrets of type kubernetes.io/service-account-token (before
   * 1.24): issuer `kubernetes/serviceaccount`, no audience, no expiry, claims naming the secret and the account.
   */
  issueLegacy(namespace: string, secretName: string, serviceAccount: ObjectRef): Promise<string> {
    return new SignJWT({
      'kubernetes.io/serviceaccount/namespace': namespace,
      'kubernetes.io/serviceaccount/secret.name': secretName,
      'kubernetes.io/serviceaccount/service-account.name': serviceAccount.name,
      'kubernetes.io/serviceaccount/service-account.uid': serviceAccount.uid,
    })
      .setProtectedHeader({ alg: this.keys.signing.alg, kid: this.keys.signing.kid })
      .setIssuer(LEGACY_SERVICE_ACCOUNT_ISSUER)
      .setSubject(serviceAccountUsername(namespace, serviceAccount.name))
      .sign(this.keys.signingKey);
  }
}

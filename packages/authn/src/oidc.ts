import { compactVerify, createRemoteJWKSet, customFetch, decodeProtectedHeader, type JWTVerifyGetKey } from 'jose';
import { audienceAgnosticToken } from './audiences.ts';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import { BearerTokenAuthenticator, type TokenAuthenticator } from './bearer-token.ts';
import { type HttpsFetch, httpsFetch } from './https-fetch.ts';
import type { UserInfo } from './user-info.ts';

/**
 * The signing algorithms kube's OIDC authenticator allows (its allowedSigningAlgs): asymmetric only. `none` and
 * the HMAC family are never accepted, so a published public key can never be used as an HMAC secret.
 */
export const OIDC_SIGNING_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

export interface OIDCOptions {
  /** kube's --oidc-issuer-url: https, no query, fragment or user info; tokens' `iss` must equal it exactly. */
  issuerURL: string;
  /**
   * Where to read the discovery document instead of `<issuer>/.well-known/openid-configuration` (AuthenticationConfiguration's
   * issuer.discoveryURL, for issuers reached by another address); its `issuer` must still be `issuerURL`. https.
   */
  discoveryURL?: string;
  /** kube's --oidc-client-id: `aud` must contain it (or one of `audiences`). */
  clientID?: string;
  /** More accepted audiences (AuthenticationConfiguration's issuer.audiences); `aud` must contain at least one. */
  audiences?: readonly string[];
  /** kube's --oidc-ca-file contents: PEM roots to trust for the issuer instead of Node's defaults. */
  ca?: string | Buffer | undefined;
  /** kube's --oidc-username-claim; default `sub`. */
  usernameClaim?: string;
  /**
   * Put before every username, as given ('' for none). Unset: kube's --oidc-username-prefix default, `<issuerURL>#`
   * for any claim but `email` (so two issuers' `sub`s cannot collide), none for `email`. (The flag's `-` for "none"
   * is the flag parser's business: pass ''.)
   */
  usernamePrefix?: string;
  /** kube's --oidc-groups-claim: a string or an array of strings; absent or null is no groups. */
  groupsClaim?: string;
  /** kube's --oidc-groups-prefix. */
  groupsPrefix?: string;
  /** A claim holding the user's uid (AuthenticationConfiguration's claimMappings.uid.claim); a string. */
  uidClaim?: string;
  /** kube's --oidc-required-claim key=value pairs: each claim must be present and a string equal to the value. */
  requiredClaims?: Readonly<Record<string, string>>;
  /** kube's --oidc-signing-algs; default RS256. Each must be one of OIDC_SIGNING_ALGORITHMS. */
  signingAlgorithms?: readonly string[];
  /** The server's API audiences (--api-audiences): a request asking for audiences must meet them (kube wraps OIDC as audience-agnostic). */
  apiAudiences?: readonly string[];
  /** Time between discovery attempts while the issuer cannot be reached; default 10 s, as kube. */
  retryIntervalMs?: number;
  /** Limit for one discovery or key-set request; default 30 s, as kube's HTTP client. */
  timeoutMs?: number;
  /** How long fetched keys are used before the key set is fetched again; default 10 min (jose's). */
  jwksMaxAgeMs?: number;
  /**
   * Least time between two key-set fetches caused by tokens whose `kid` is unknown (a rotated key); default 30 s
   * (jose's), so a stream of tokens with made-up `kid`s cannot make this server hammer the issuer.
   */
  jwksCooldownMs?: number;
  /** Told each failed discovery attempt (kube logs them); the authenticator keeps retrying. */
  onDiscoveryError?: (err: Error) => void;
  /** Injected clock, ms since the epoch. */
  now?: () => number;
}

/** go-oidc's leeway for `nbf`; `exp` has none and `iat` is not checked (kube's verifier). */
const NBF_LEEWAY_MS = 60_000;

type Claims = Record<string, unknown>;

/**
 * kube's OIDC token authenticator (plugin/pkg/authenticator/token/oidc, the --oidc-* flags): verifies ID tokens of
 * one issuer found by discovery (`<issuer>/.well-known/openid-configuration`, whose `issuer` must be the
 * configured one) and signed by a key of its `jwks_uri` (jose's remote key set: cached, and fetched again when a
 * token names an unknown `kid`, e.g. after the issuer rotated its keys).
 *
 * A token that is not a JWT, or whose (unverified) `iss` is another issuer, gets no opinion, so a union can try the
 * next authenticator; a token of this issuer that fails any check throws. Checks, in go-oidc's order (cheap claim
 * checks before any key fetch): `aud` contains a client id/audience, `exp` in the future (no leeway), `nbf` at most
 * one minute ahead, `alg` in the allowed list, then the signature. The user is the username claim (an `email`
 * claim needs `email_verified` to be true when present) with its prefix, groups from the groups claim with theirs,
 * and every required claim must match.
 *
 * Discovery starts at construction and is retried every 10 s until it succeeds (the issuer may run on this very
 * cluster, as kube allows); until then tokens of this issuer fail with `oidc: authenticator not initialized`. Unlike
 * kube, a token arriving while the very first attempt is still under way waits for it (bounded by `timeoutMs`), so a
 * server that has just started does not refuse its first OIDC requests.
 *
 * @example
 * const oidc = new OIDCAuthenticator({ issuerURL: 'https://issuer.example', clientID: 'kubernetes', groupsClaim: 'groups' });
 */
export class OIDCAuthenticator implements Authenticator, TokenAuthenticator {
  readonly #issuer: string;
  readonly #audiences: ReadonlySet<string>;
  readonly #usernameClaim: string;
  readonly #usernamePrefix: string;
  readonly #groupsClaim: string;
  readonly #groupsPrefix: string;
  readonly #uidClaim: string;
  readonly #requiredClaims: ReadonlyArray<readonly [string, string]>;
  readonly #algorithms: readonly string[];
  readonly #options: OIDCOptions;
  readonly #now: () => number;
  readonly #fetch: HttpsFetch;
  readonly #tokens: TokenAuthenticator;
  readonly #bearer: BearerTokenAuthenticator;
  #keys: JWTVerifyGetKey | undefined;
  #discoveryError: Error | undefined;
  readonly #firstAttempt: Promise<void>;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #markReady!: () => void;
  readonly #ready = new Promise<void>((resolve) => {
    this.#markReady = resolve;
  });

  /** Checks the options (throws on a bad one, with kube's message) and starts discovery. */
  constructor(options: OIDCOptions) {
    this.#issuer = checkIssuerURL(options.issuerURL);
    if (options.discoveryURL !== undefined && URL.parse(options.discoveryURL)?.protocol !== 'https:') {
      throw new Error(`oidc: discovery URL ${JSON.stringify(options.discoveryURL)} must be an https URL`);
    }
    const audiences = [...(options.clientID ? [options.clientID] : []), ...(options.audiences ?? [])].filter((a) => a !== '');
    if (audiences.length === 0) throw new Error('oidc: a client id (or at least one audience) is required with an issuer URL');
    this.#audiences = new Set(audiences);
    this.#usernameClaim = options.usernameClaim ?? 'sub';
    if (this.#usernameClaim === '') throw new Error('no username claim provided');
    this.#usernamePrefix = usernamePrefix(this.#issuer, this.#usernameClaim, options.usernamePrefix);
    this.#groupsClaim = options.groupsClaim ?? '';
    this.#groupsPrefix = options.groupsPrefix ?? '';
    this.#uidClaim = options.uidClaim ?? '';
    this.#requiredClaims = Object.entries(options.requiredClaims ?? {});
    this.#algorithms = options.signingAlgorithms?.length ? [...options.signingAlgorithms] : ['RS256'];
    for (const alg of this.#algorithms) {
      if (!OIDC_SIGNING_ALGORITHMS.includes(alg)) throw new Error(`oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
    }
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#fetch = httpsFetch({ ca: options.ca, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
    this.#tokens = audienceAgnosticToken(options.apiAudiences ?? [], { authenticateToken: (token) => this.#verify(token) });
    this.#bearer = new BearerTokenAuthenticator(this);
    this.#firstAttempt = this.#discover();
  }

  /** The issuer URL tokens must carry in `iss`. */
  get issuerURL(): string {
    return this.#issuer;
  }

  /** Why the last discovery attempt failed; undefined once discovery has succeeded. */
  get discoveryError(): Error | undefined {
    return this.#discoveryError;
  }

  /** Resolves once discovery has succeeded (it may never, if the issuer stays unreachable). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Stops retrying discovery and drops kept-alive connections to the issuer. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#fetch.close();
  }

  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    return this.#bearer.authenticate(req);
  }

  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
    return this.#tokens.authenticateToken(token, audiences);
  }

  async #discover(): Promise<void> {
    try {
      this.#keys = await this.#keySet();
      this.#discoveryError = undefined;
      this.#markReady();
    } catch (err) {
      this.#discoveryError = err instanceof Error ? err : new Error(String(err));
      this.#options.onDiscoveryError?.(this.#discoveryError);
      if (!this.#closed) {
        this.#retry = setTimeout(() => void this.#discover(), this.#options.retryIntervalMs ?? 10_000);
        this.#retry.unref();
      }
    }
  }

  /** go-oidc's NewProvider: the discovery document, whose issuer must be ours, and a key set for its jwks_uri. */
  async #keySet(): Promise<JWTVerifyGetKey> {
    const url = this.#options.discoveryURL ?? `${this.#issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const res = await this.#fetch(url, { headers: { accept: 'application/json' } });
    if (res.status !== 200) throw new Error(`oidc: discovery ${url}: ${res.status} ${res.statusText}`.trimEnd());
    let doc: unknown;
    try {
      doc = await res.json();
    } catch (err) {
      throw new Error(`oidc: failed to decode provider discovery object: ${(err as Error).message}`);
    }
    const { issuer, jwks_uri: jwksURI } = (isObject(doc) ? doc : {}) as { issuer?: unknown; jwks_uri?: unknown };
    if (issuer !== this.#issuer) {
      throw new Error(
        `oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.#issuer)} got ${JSON.stringify(issuer)}`,
      );
    }
    const jwks = typeof jwksURI === 'string' ? URL.parse(jwksURI) : null;
    if (jwks?.protocol !== 'https:') throw new Error(`oidc: provider's jwks_uri must be an https URL, got ${JSON.stringify(jwksURI)}`);
    const fetch = this.#fetch;
    return createRemoteJWKSet(jwks, {
      [customFetch]: (href, init) => fetch(href, { headers: init.headers, signal: init.signal }),
      timeoutDuration: this.#options.timeoutMs ?? 30_000,
      ...(this.#options.jwksMaxAgeMs !== undefined ? { cacheMaxAge: this.#options.jwksMaxAgeMs } : {}),
      ...(this.#options.jwksCooldownMs !== undefined ? { cooldownDuration: this.#options.jwksCooldownMs } : {}),
    });
  }

  async #verify(token: string): Promise<AuthenticationResult | null> {
    // Read before anything is verified; trusted only once the signature over these very bytes has been checked below.
    const claims = untrustedClaims(token);
    if (claims?.iss !== this.#issuer) return null;
    if (!this.#keys) await this.#firstAttempt;
    const keys = this.#keys;
    if (!keys) throw new Error('oidc: authenticator not initialized');

    // go-oidc checks the (not yet trusted) claims first, so a token that would fail anyway never makes us fetch keys.
    const claimsError = this.#checkClaims(claims);
    if (claimsError) throw new Error(`oidc: verify token: ${claimsError}`);
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new Error('oidc: verify token: oidc: malformed jwt header');
    }
    if (typeof alg !== 'string' || !this.#algorithms.includes(alg)) {
      throw new Error(
        `oidc: verify token: oidc: id token signed with unsupported algorithm, expected [${this.#algorithms.join(' ')}] got ${JSON.stringify(alg)}`,
      );
    }
    let payload: Uint8Array;
    try {
      ({ payload } = await compactVerify(token, keys, { algorithms: [...this.#algorithms] }));
    } catch (err) {
      throw new Error(`oidc: verify token: failed to verify signature: ${(err as Error).message}`);
    }
    // go-oidc's last check: the signed payload must be the one whose claims were checked above (an unencoded
    // `b64: false` payload, say, is not), so the user comes from verified claims only.
    if (!Buffer.from(payload).equals(Buffer.from(token.split('.')[1] as string, 'base64url'))) {
      throw new Error('oidc: verify token: oidc: internal error, payload parsed did not match previous payload');
    }
    return { user: this.#userOf(claims) };
  }

  /** go-oidc's IDTokenVerifier claim checks; the error text, or undefined when they pass. */
  #checkClaims(claims: Claims): string | undefined {
    const aud = claims.aud;
    const auds =
      typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === 'string') ? (aud as string[]) : undefined;
    if (!auds) return 'oidc: failed to unmarshal claims: aud must be a string or an array of strings';
    if (!auds.some((a) => this.#audiences.has(a))) {
      return `oidc: expected audience ${JSON.stringify([...this.#audiences])} got ${JSON.stringify(auds)}`;
    }
    for (const name of ['exp', 'nbf', 'iat']) {
      const v = claimOf(claims, name);
      if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v))) {
        return `oidc: failed to unmarshal claims: ${name} must be a number`;
      }
    }
    const now = this.#now();
    // A missing exp is the zero time to go-oidc, so such a token is always expired.
    if (typeof claims.exp !== 'number') return 'oidc: token is expired (it has no exp claim)';
    if (claims.exp * 1000 < now) return `oidc: token is expired (Token Expiry: ${new Date(claims.exp * 1000).toISOString()})`;
    if (typeof claims.nbf === 'number' && now + NBF_LEEWAY_MS < claims.nbf * 1000) {
      return `oidc: current time ${new Date(now).toISOString()} before the nbf (not before) time: ${new Date(claims.nbf * 1000).toISOString()}`;
    }
    return undefined;
  }

  /** kube's claim mapping: username (+ email_verified), groups, uid, then the required claims. */
  #userOf(claims: Claims): UserInfo {
    const username = claimOf(claims, this.#usernameClaim);
    if (username === undefined) throw new Error(`oidc: parse username claims ${JSON.stringify(this.#usernameClaim)}: claim not present`);
    if (typeof username !== 'string') throw new Error(`oidc: parse username claims ${JSON.stringify(this.#usernameClaim)}: not a string`);
    if (this.#usernameClaim === 'email' && Object.hasOwn(claims, 'email_verified')) {
      // OIDC's standard claims: an email is only the user's if the issuer says it verified it.
      const verified = claims.email_verified;
      if (typeof verified !== 'boolean') throw new Error("oidc: parse 'email_verified' claim: not a boolean");
      if (!verified) throw new Error('oidc: email not verified');
    }
    const user: { name: string; groups: string[]; uid?: string } = { name: this.#usernamePrefix + username, groups: [] };
    if (this.#groupsClaim !== '' && Object.hasOwn(claims, this.#groupsClaim)) {
      const groups = claims[this.#groupsClaim];
      // A single string is one group (kubernetes/kubernetes#33290: a "role" claim as the group).
      const list = typeof groups === 'string' ? [groups] : groups === null ? [] : groups;
      if (!Array.isArray(list) || !list.every((g) => typeof g === 'string')) {
        throw new Error(`oidc: parse groups claim ${JSON.stringify(this.#groupsClaim)}: not a string or an array of strings`);
      }
      user.groups = list.map((g) => this.#groupsPrefix + g);
    }
    if (this.#uidClaim !== '') {
      const uid = claimOf(claims, this.#uidClaim);
      if (typeof uid !== 'string')
        throw new Error(
          `oidc: parse uid claim ${JSON.stringify(this.#uidClaim)}: ${uid === undefined ? 'claim not present' : 'not a string'}`,
        );
      user.uid = uid;
    }
    for (const [name, want] of this.#requiredClaims) {
      if (!Object.hasOwn(claims, name)) throw new Error(`oidc: required claim ${name} not present in ID token`);
      const got = claims[name];
      if (typeof got !== 'string') throw new Error(`oidc: parse claim ${name}: not a string`);
      if (got !== want) throw new Error(`oidc: required claim ${name} value does not match. Got = ${got}, want = ${want}`);
    }
    return user;
  }
}

/** The prefix as given, or kube's --oidc-username-prefix default: `<issuer>#` unless the claim is `email`. */
function usernamePrefix(issuer: string, claim: string, prefix: string | undefined): string {
  if (prefix !== undefined) return prefix;
  return claim === 'email' ? '' : `${issuer}#`;
}

/** kube's checks of an issuer URL (the --oidc-issuer-url flag and AuthenticationConfiguration's issuer.url). */
function checkIssuerURL(raw: string): string {
  const url = URL.parse(raw);
  if (!url) throw new Error(`'oidc-issuer-url' (${JSON.stringify(raw)}) is not a URL`);
  if (url.protocol !== 'https:') {
    throw new Error(
      `'oidc-issuer-url' (${JSON.stringify(raw)}) has invalid scheme (${JSON.stringify(url.protocol.slice(0, -1))}), require 'https'`,
    );
  }
  if (url.username !== '' || url.password !== '')
    throw new Error(`'oidc-issuer-url' (${JSON.stringify(raw)}) must not contain a username or password`);
  if (raw.includes('?')) throw new Error(`'oidc-issuer-url' (${JSON.stringify(raw)}) must not contain a query`);
  if (raw.includes('#')) throw new Error(`'oidc-issuer-url' (${JSON.stringify(raw)}) must not contain a fragment`);
  // Tokens must carry the issuer exactly as configured, so the string is kept, not URL's normalised form.
  return raw;
}

/**
 * kube's untrustedIssuer: the claims of a compact JWT, read without verifying anything, only to tell whether the
 * token is this issuer's; undefined for anything that is not a compact JWT with a JSON object payload.
 */
function untrustedClaims(token: string): Claims | undefined {
  if (token.trimStart().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const payload = parts[1] as string;
  // Go's RawURLEncoding: the base64url alphabet, no padding.
  if (!/^[A-Za-z0-9_-]*$/.test(payload)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return isObject(claims) ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** A claim the token itself carries (never one inherited from Object.prototype, such as `constructor`). */
function claimOf(claims: Claims, name: string): unknown {
  return Object.hasOwn(claims, name) ? claims[name] : undefined;
}

function isObject(v: unknown): v is Claims {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

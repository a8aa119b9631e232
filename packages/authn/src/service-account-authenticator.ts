import { type Clock, type KubeObject, realClock } from '@kapi/apimachinery';
import { createLocalJWKSet, decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import { intersectAudiences } from './audiences.ts';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
import { BearerTokenAuthenticator, type TokenAuthenticator } from './bearer-token.ts';
import {
  ALL_SERVICE_ACCOUNTS_GROUP,
  CREDENTIAL_ID_KEY,
  LEGACY_SERVICE_ACCOUNT_ISSUER,
  NODE_NAME_KEY,
  NODE_UID_KEY,
  type ObjectRef,
  POD_NAME_KEY,
  POD_UID_KEY,
  serviceAccountNamespaceGroup,
  serviceAccountUsername,
} from './service-account-claims.ts';
import { jwksOf, type VerificationKey } from './service-account-keys.ts';
import type { UserInfo } from './user-info.ts';

/**
 * Reads one object for the authenticator (`namespace` is '' for cluster-scoped kinds such as Node): null when it does
 * not exist. Without `fresh` it may answer from a cache (a moment old); with `fresh` it must read the latest state.
 * A server passes e.g. a Store read at resourceVersion "0" and, when fresh, a consistent read.
 */
export type ObjectGetter = (namespace: string, name: string, options?: { fresh?: boolean }) => Promise<KubeObject | null>;

export interface ServiceAccountAuthenticatorOptions {
  /** The issuers whose tokens are checked (kube's --service-account-issuer, all of them); others get no opinion. */
  issuers: readonly string[];
  /** The public keys that verify tokens (kube's --service-account-key-file). */
  keys: readonly VerificationKey[];
  /** kube's --api-audiences: what a token must be good for when the request names no audiences. Default: the issuers. */
  audiences?: readonly string[];
  serviceAccounts: ObjectGetter;
  /** Getters of the kinds a token may be bound to; a token bound to a kind without one is refused. */
  pods?: ObjectGetter;
  secrets?: ObjectGetter;
  nodes?: ObjectGetter;
  /**
   * Also accept legacy tokens (issuer `kubernetes/serviceaccount`) kept in Secrets of type
   * kubernetes.io/service-account-token, while the Secret holds the same token. Needs `secrets`. Default false.
   */
  legacy?: boolean;
  clock?: Clock;
}

/** go-jose's default leeway, which kube's claim validation uses for exp, nbf and iat. */
const LEEWAY_SECONDS = 60;
/** kube accepts a token bound to a pod for a minute after the pod's deletion began (its graceful termination). */
const POD_DELETION_GRACE_MS = 60_000;

const LEGACY = 'kubernetes.io/serviceaccount/';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function refOf(v: unknown): ObjectRef | undefined {
  if (!isRecord(v) || typeof v.name !== 'string' || typeof v.uid !== 'string' || !v.name) return undefined;
  return { name: v.name, uid: v.uid };
}

function audiencesOf(payload: JWTPayload): string[] {
  const aud = payload.aud;
  return aud === undefined ? [] : typeof aud === 'string' ? [aud] : aud;
}

/** What a verification error says, in kube's words where it has them; never the token. */
function verifyError(err: unknown): Error {
  if (err instanceof errors.JWTExpired) return new Error('service account token has expired');
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'nbf') return new Error('service account token is not valid yet');
  if (err instanceof errors.JOSEError) return new Error(`invalid service account token: ${err.code}`);
  return new Error('invalid service account token');
}

/**
 * kube's service-account token authenticator (pkg/serviceaccount JWTTokenAuthenticator with its bound-token and,
 * optionally, legacy validators): a JWT from one of `issuers` is verified against `keys` (RS256/ES256 only: `none`
 * and HMAC never verify), its time claims (exp, nbf, iat) with a minute's leeway, its audiences against the requested (or API)
 * audiences, and the ServiceAccount it names — and the pod, secret or node it is bound to — must still exist with the
 * same uid. User `system:serviceaccount:<ns>:<name>` with the account's uid, groups `system:serviceaccounts` and
 * `system:serviceaccounts:<ns>`, extra credential-id `JTI=<jti>` and the bound pod's (and node's) name and uid.
 *
 * A cached read that misses, or shows another uid, is read again fresh before the token is refused.
 */
export class ServiceAccountAuthenticator implements Authenticator, TokenAuthenticator {
  readonly #options: ServiceAccountAuthenticatorOptions;
  readonly #issuers: ReadonlySet<string>;
  readonly #audiences: readonly string[];
  readonly #algorithms: string[];
  readonly #keySet: Promise<ReturnType<typeof createLocalJWKSet>>;
  readonly #clock: Clock;
  readonly #bearer: BearerTokenAuthenticator;

  constructor(options: ServiceAccountAuthenticatorOptions) {
    if (!options.issuers.length) throw new Error('a service-account authenticator needs at least one issuer');
    if (options.legacy && !options.secrets) throw new Error('legacy service-account tokens need a secrets getter');
    this.#options = options;
    this.#issuers = new Set(options.issuers);
    this.#audiences = [...(options.audiences ?? options.issuers)];
    this.#algorithms = [...new Set(options.keys.map((k) => k.alg))];
    this.#keySet = jwksOf(options.keys).then((jwks) => createLocalJWKSet(jwks));
    this.#clock = options.clock ?? realClock;
    this.#bearer = new BearerTokenAuthenticator(this);
  }

  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
    return this.#bearer.authenticate(req);
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
    let iss: string | undefined;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return null; // not a JWT: another authenticator's token
    }
    const legacy = iss === LEGACY_SERVICE_ACCOUNT_ISSUER && this.#options.legacy === true && !this.#issuers.has(iss);
    if (iss === undefined || (!this.#issuers.has(iss) && !legacy)) return null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.#keySet, {
        issuer: iss,
        algorithms: this.#algorithms,
        clockTolerance: LEEWAY_SECONDS,
        currentDate: new Date(this.#clock.now()),
        ...(legacy ? {} : { requiredClaims: ['exp', 'sub'] }),
      }));
    } catch (err) {
      throw verifyError(err);
    }
    // go-jose (and so kube) also refuses an iat past the leeway; jose checks iat only for a maximum age.
    if (typeof payload.iat === 'number' && payload.iat > this.#clock.now() / 1000 + LEEWAY_SECONDS)
      throw new Error('service account token is issued in the future');
    // kube: a token without audiences (a legacy one) is good for the API audiences only.
    const own = audiencesOf(payload);
    const tokenAuds = own.length ? own : this.#audiences;
    const requested = audiences?.length ? audiences : this.#audiences;
    const auds = intersectAudiences(tokenAuds, requested);
    if (auds.length === 0) throw new Error('service account token audiences are invalid for the target audiences');
    const user = legacy ? await this.#legacyUser(payload, token) : await this.#boundUser(payload);
    return { user, audiences: auds };
  }

  async #boundUser(payload: JWTPayload): Promise<UserInfo> {
    const kube = payload['kubernetes.io'];
    const namespace = isRecord(kube) && typeof kube.namespace === 'string' ? kube.namespace : '';
    const sa = isRecord(kube) ? refOf(kube.serviceaccount) : undefined;
    if (!namespace || !sa || payload.sub !== serviceAccountUsername(namespace, sa.name))
      throw new Error('service account token claims are malformed');
    const k = kube as Record<string, unknown>;
    const bound = (['pod', 'secret', 'node'] as const).filter((kind) => k[kind] !== undefined);
    if (bound.length > 1) throw new Error('service account token is bound to more than one object');
    await this.#mustExist(this.#options.serviceAccounts, 'service account', namespace, sa);
    const extra: Record<string, string[]> = {};
    if (typeof payload.jti === 'string' && payload.jti) extra[CREDENTIAL_ID_KEY] = [`JTI=${payload.jti}`];
    for (const kind of bound) {
      const ref = refOf(k[kind]);
      if (!ref) throw new Error('service account token claims are malformed');
      const getter = kind === 'pod' ? this.#options.pods : kind === 'secret' ? this.#options.secrets : this.#options.nodes;
      if (!getter) throw new Error(`service account tokens bound to a ${kind} cannot be checked by this server`);
      await this.#mustExist(getter, kind, kind === 'node' ? '' : namespace, ref);
      if (kind === 'pod') Object.assign(extra, { [POD_NAME_KEY]: [ref.name], [POD_UID_KEY]: [ref.uid] });
      if (kind === 'node') Object.assign(extra, { [NODE_NAME_KEY]: [ref.name], [NODE_UID_KEY]: [ref.uid] });
    }
    return userOf(namespace, sa, extra);
  }

  async #legacyUser(payload: JWTPayload, token: string): Promise<UserInfo> {
    const str = (key: string): string => {
      const v = payload[`${LEGACY}${key}`];
      if (typeof v !== 'string' || !v) throw new Error('service account token claims are malformed');
      return v;
    };
    const namespace = str('namespace');
    const secretName = str('secret.name');
    const sa = { name: str('service-account.name'), uid: str('service-account.uid') };
    if (payload.sub !== serviceAccountUsername(namespace, sa.name)) throw new Error('service account token claims are malformed');
    const getter = this.#options.secrets as ObjectGetter;
    let secret = await getter(namespace, secretName);
    if (!secret || secretToken(secret) !== token) secret = await getter(namespace, secretName, { fresh: true });
    if (!secret || secret.metadata.deletionTimestamp) throw new Error(`secret ${namespace}/${secretName} has been deleted`);
    if (secretToken(secret) !== token) throw new Error('service account token does not match its secret');
    await this.#mustExist(this.#options.serviceAccounts, 'service account', namespace, sa);
    return userOf(namespace, sa, {});
  }

  /** The object must exist, carry `ref.uid` and not be deleted (a pod: not for more than its grace). */
  async #mustExist(getter: ObjectGetter, what: string, namespace: string, ref: ObjectRef): Promise<void> {
    const valid = (o: KubeObject | null): boolean => o !== null && o.metadata.uid === ref.uid && !this.#deleted(what, o);
    let obj = await getter(namespace, ref.name);
    if (!valid(obj)) obj = await getter(namespace, ref.name, { fresh: true });
    const where = namespace ? `${namespace}/${ref.name}` : ref.name;
    if (!obj || this.#deleted(what, obj)) throw new Error(`${what} ${where} has been deleted`);
    if (obj.metadata.uid !== ref.uid) throw new Error(`${what} UID (${obj.metadata.uid ?? ''}) does not match claim (${ref.uid})`);
  }

  #deleted(what: string, obj: KubeObject): boolean {
    const ts = obj.metadata.deletionTimestamp;
    if (!ts) return false;
    return what !== 'pod' || Date.parse(ts) + POD_DELETION_GRACE_MS < this.#clock.now();
  }
}

function secretToken(secret: KubeObject): string | undefined {
  const data = (secret as { data?: unknown }).data;
  const b64 = isRecord(data) ? data.token : undefined;
  return typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('utf8') : undefined;
}

function userOf(namespace: string, sa: ObjectRef, extra: Record<string, string[]>): UserInfo {
  return {
    name: serviceAccountUsername(namespace, sa.name),
    uid: sa.uid,
    groups: [ALL_SERVICE_ACCOUNTS_GROUP, serviceAccountNamespaceGroup(namespace)],
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

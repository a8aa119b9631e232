import {
  type Clock,
  type FieldError,
  fieldErrors,
  formatAPIVersionKind,
  type KubeObject,
  newBadRequest,
  newConflict,
  newInvalid,
  realClock,
} from '@kapi/apimachinery';
import {
  type BoundObjectKind,
  DEFAULT_TOKEN_EXPIRATION_SECONDS,
  MAX_TOKEN_EXPIRATION_SECONDS,
  MIN_TOKEN_EXPIRATION_SECONDS,
  type ServiceAccountTokenIssuer,
} from '@kapi/authn';
import type { Store } from '@kapi/registry';
import type { SubresourceStorage } from '../endpoints/subresource-storage.ts';
import { addWarning } from '../filters/warning.ts';

const TOKEN_REQUEST_KIND = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
/** The store of each kind a token may be bound to, by its plural. */
const BOUND_RESOURCES: Readonly<Record<BoundObjectKind, string>> = { Pod: 'pods', Secret: 'secrets', Node: 'nodes' };

export interface TokenRequestOptions {
  /** The ServiceAccount store (tokens are only issued for accounts that exist). */
  serviceAccounts: Store;
  issuer: ServiceAccountTokenIssuer;
  /** kube's --api-audiences: the audiences of a request that names none. Default [issuer.issuer]. */
  apiAudiences?: readonly string[];
  /** The Store of a bound object's kind (`pods`, `secrets`, `nodes`), or undefined when this server does not serve it. */
  storeOf: (resource: string) => Store | undefined;
  clock?: Clock;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: { kind: string; apiVersion?: string; name: string; uid?: string };
}

/** The spec of a TokenRequest body with v1's defaults, or kube's decode error (400) for fields of the wrong type. */
function specOf(body: KubeObject): TokenRequestSpec {
  const bad = (why: string) => newBadRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: ${why}`);
  const spec = (body as { spec?: unknown }).spec ?? {};
  if (!isRecord(spec)) throw bad('spec must be an object');
  // Go's nil slice and pointers arrive as null: unset.
  const audiences = spec.audiences ?? [];
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  const boundObjectRef = spec.boundObjectRef;
  if (!Array.isArray(audiences) || !audiences.every((a) => typeof a === 'string')) throw bad('spec.audiences must be a list of strings');
  if (typeof expirationSeconds !== 'number' || !Number.isSafeInteger(expirationSeconds))
    throw bad('spec.expirationSeconds must be an integer');
  const out: TokenRequestSpec = { audiences: [...audiences], expirationSeconds };
  if (boundObjectRef !== undefined && boundObjectRef !== null) {
    if (!isRecord(boundObjectRef)) throw bad('spec.boundObjectRef must be an object');
    for (const f of ['kind', 'apiVersion', 'name', 'uid'])
      if (boundObjectRef[f] !== undefined && typeof boundObjectRef[f] !== 'string') throw bad(`spec.boundObjectRef.${f} must be a string`);
    out.boundObjectRef = boundObjectRef as unknown as NonNullable<TokenRequestSpec['boundObjectRef']>;
  }
  return out;
}

/**
 * kube's TokenREST (pkg/registry/core/serviceaccount/storage/token.go): POST .../serviceaccounts/<name>/token with an
 * authentication.k8s.io/v1 TokenRequest issues a bound token for the account, if it exists (else 404). Audiences
 * default to the API audiences; expirationSeconds defaults to 3600, must be at least 600 (422) and is shortened to
 * the issuer's maximum with a warning. A boundObjectRef names a Pod (running as this account), Secret or Node that
 * must exist (404) and carry the given uid (409); other kinds, or kinds this server does not serve, are a 400.
 * Answers the request with status.token and status.expirationTimestamp.
 */
export function tokenSubresource(options: TokenRequestOptions): SubresourceStorage {
  const clock = options.clock ?? realClock;
  const apiAudiences = options.apiAudiences ?? [options.issuer.issuer];
  return {
    kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
    async create({ ctx, info }, input) {
      // A storage of its own kind is given an object (see SubresourceBody).
      const body = input as KubeObject;
      const { namespace, name } = info;
      const meta = body.metadata;
      if (meta.name && meta.name !== name)
        throw newInvalid(TOKEN_REQUEST_KIND, name, [
          fieldErrors.invalid('metadata.name', meta.name, 'must match the service account name if specified'),
        ]);
      if (meta.namespace && meta.namespace !== namespace)
        throw newInvalid(TOKEN_REQUEST_KIND, name, [
          fieldErrors.invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified'),
        ]);
      const sa = await options.serviceAccounts.get({ namespace }, name);
      const spec = specOf(body);
      if (spec.audiences.length === 0) spec.audiences = [...apiAudiences];
      const errs: FieldError[] = [];
      if (spec.expirationSeconds < MIN_TOKEN_EXPIRATION_SECONDS)
        errs.push(fieldErrors.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 10 minutes'));
      if (spec.expirationSeconds > MAX_TOKEN_EXPIRATION_SECONDS)
        errs.push(
          fieldErrors.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'),
        );
      if (errs.length) throw newInvalid(TOKEN_REQUEST_KIND, '', errs);
      const bound = spec.boundObjectRef ? await boundObject(options, namespace, name, spec.boundObjectRef) : undefined;
      const max = options.issuer.maxExpirationSeconds;
      if (max !== undefined && max > 0 && spec.expirationSeconds > max) {
        addWarning(ctx, `requested expiration of ${spec.expirationSeconds} seconds shortened to ${max} seconds`);
        spec.expirationSeconds = max;
      }
      const now = clock.now();
      const issued = await options.issuer.issue({
        namespace,
        serviceAccount: { name, uid: sa.metadata.uid ?? '' },
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        ...(bound ? { boundObject: bound } : {}),
      });
      const object = {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { ...meta, name, namespace, creationTimestamp: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z') },
        spec,
        status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
      };
      return { object };
    },
    // The token is a credential: audit records the response without it.
    auditResponse(response: unknown): unknown {
      const r = response as { status?: Record<string, unknown> };
      if (!r.status) return response;
      const { token: _token, ...status } = r.status;
      return { ...r, status };
    },
  };
}

async function boundObject(
  options: TokenRequestOptions,
  namespace: string,
  saName: string,
  ref: NonNullable<TokenRequestSpec['boundObjectRef']>,
): Promise<{ kind: BoundObjectKind; name: string; uid: string }> {
  const apiVersion = ref.apiVersion ?? '';
  const kind =
    Object.hasOwn(BOUND_RESOURCES, ref.kind) && (apiVersion === '' || apiVersion === 'v1') ? (ref.kind as BoundObjectKind) : undefined;
  const store = kind ? options.storeOf(BOUND_RESOURCES[kind]) : undefined;
  if (!kind || !store) {
    const gvk = formatAPIVersionKind(apiVersion, ref.kind);
    throw newBadRequest(`cannot bind token to object of type ${gvk}`);
  }
  const obj = await store.get(kind === 'Node' ? {} : { namespace }, ref.name ?? '');
  if (kind === 'Pod' && (obj as { spec?: { serviceAccountName?: string } }).spec?.serviceAccountName !== saName)
    throw newBadRequest(`cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`);
  const uid = obj.metadata.uid ?? '';
  if (ref.uid && ref.uid !== uid)
    throw newConflict(
      { group: '', resource: kind },
      ref.name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  return { kind, name: obj.metadata.name ?? ref.name, uid };
}

/** GenericAPIServer's `serviceAccountTokens`: what issues tokens, and the audiences and JWKS URI it announces. */
export interface ServiceAccountTokenOptions {
  issuer: ServiceAccountTokenIssuer;
  /** kube's --api-audiences (the audiences of a TokenRequest that names none). Default [issuer.issuer]. */
  apiAudiences?: readonly string[];
  /** kube's --service-account-jwks-uri for /.well-known/openid-configuration. Default `<issuer>/openid/v1/jwks`. */
  jwksURI?: string | (() => string);
}

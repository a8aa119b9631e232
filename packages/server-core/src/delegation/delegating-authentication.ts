import type { IncomingHttpHeaders } from 'node:http';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  BearerTokenAuthenticator,
  type CABundle,
  DEFAULT_WEBHOOK_RETRY_BACKOFF,
  headersIn,
  RequestHeaderAuthenticator,
  type RequestHeaderAuthenticatorOptions,
  type RequestHeaderNameSet,
  type RetryBackoff,
  requestHeaderNames,
  TokenCache,
  unionAuthenticator,
  WebhookTokenAuthenticator,
  withAuthenticatedGroup,
  X509Authenticator,
} from '@kapi/authn';
import type { AuthenticationOptions } from '../filters/authentication.ts';
import { AuthenticationInfoSource } from './authentication-info-source.ts';
import { atPath, connectionConfig, type DelegationConnection } from './delegation-connection.ts';

/** k8s.io/apiserver's DelegatingAuthenticationOptions default CacheTTL: 10 s, for successes and failures alike. */
export const DEFAULT_DELEGATED_AUTHN_CACHE_TTL_MS = 10_000;
/** Its TokenRequestTimeout default: 10 s. */
export const DEFAULT_DELEGATED_AUTHN_TIMEOUT_MS = 10_000;

const TOKEN_REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';

export interface DelegatingAuthenticationOptions {
  /** The main server and the credentials to call it with (kube's --authentication-kubeconfig). */
  connection: DelegationConnection;
  /** How long a TokenReview answer is kept (kube's --authentication-token-webhook-cache-ttl). Default 10 s. */
  cacheTTLMs?: number;
  /** Per TokenReview call. Default 10 s. */
  timeoutMs?: number;
  retryBackoff?: RetryBackoff;
  /** kube's --api-audiences, sent in each TokenReview. */
  apiAudiences?: readonly string[];
  /**
   * Requests without any credential are system:anonymous (then authorization decides), as kube's delegating
   * authenticator allows by default. Default true.
   */
  anonymous?: boolean;
  /** kube's --client-ca-file: used instead of the ConfigMap's `client-ca-file`. */
  clientCA?: CABundle;
  /** kube's --requestheader-* flags: used instead of the ConfigMap's `requestheader-*` keys. */
  requestHeader?: RequestHeaderAuthenticatorOptions;
  /** kube's --authentication-skip-lookup: do not read the ConfigMap at all. */
  skipInClusterLookup?: boolean;
  /** kube's --authentication-tolerate-lookup-failure: start even if the ConfigMap cannot be read now. Default false. */
  tolerateInClusterLookupFailure?: boolean;
  /** Errors reading the ConfigMap (after start) and rejected credentials are reported here. */
  onError?: (err: unknown) => void;
}

export interface DelegatingAuthentication {
  /** For GenericAPIServer's `authentication` option. */
  authentication: AuthenticationOptions;
  /**
   * The CAs whose client certificates the TLS server should ask for (serve's `tls.clientCA`): they follow the
   * ConfigMap, so a new CA is advertised without a restart.
   */
  clientCAs: CABundle[];
  /** The ConfigMap as read, when it is read. */
  source: AuthenticationInfoSource | undefined;
  /** Stops watching the ConfigMap and closes the connections to the main server. */
  close(): void;
}

/** An authenticator with no opinion while its CA bundle is empty (kube has no such authenticator then). */
function whenCA(ca: CABundle, authenticator: Authenticator): Authenticator {
  return { authenticate: async (req) => (ca.certificates().length === 0 ? null : authenticator.authenticate(req)) };
}

/**
 * The front proxy as the ConfigMap describes it (kube's DynamicRequestHeaderController): rebuilt when the CA, the
 * allowed names or the header names change. After every request it removes the configured headers, whoever
 * authenticated (kube's ClearAuthenticationHeaders reads the same dynamic names).
 */
function dynamicRequestHeader(source: AuthenticationInfoSource): Authenticator {
  let current: { auth: Authenticator | null; clear: RequestHeaderNameSet } = { auth: null, clear: requestHeaderNames() };
  const rebuild = (): void => {
    const i = source.info;
    const names = {
      usernameHeaders: i.usernameHeaders,
      uidHeaders: i.uidHeaders,
      groupHeaders: i.groupHeaders,
      extraHeaderPrefixes: i.extraHeaderPrefixes,
    };
    current = {
      auth:
        i.requestHeaderCA === ''
          ? null
          : new RequestHeaderAuthenticator({ ca: source.requestHeaderCA, allowedNames: i.allowedNames, ...names }),
      clear: requestHeaderNames(names),
    };
  };
  rebuild();
  source.onChange(rebuild);
  return {
    async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null> {
      const { auth, clear } = current;
      try {
        return auth ? await auth.authenticate(req) : null;
      } finally {
        for (const h of headersIn(req.headers, clear)) delete req.headers[h];
        if (req.headersDistinct)
          for (const h of headersIn(req.headersDistinct as IncomingHttpHeaders, clear)) delete req.headersDistinct[h];
      }
    },
  };
}

/**
 * k8s.io/apiserver's DelegatingAuthenticationOptions for an aggregated (extension) API server: who calls is decided
 * the way the main kube-apiserver would decide it, in kube's order —
 * 1. the front proxy: X-Remote-User / X-Remote-Group / X-Remote-Extra-* (names from the ConfigMap) believed only from a
 *    client certificate that chains to `requestheader-client-ca-file` with an allowed CN; from anyone else they are
 *    ignored (and removed);
 * 2. client certificates signed by `client-ca-file`;
 * 3. bearer tokens, checked by a TokenReview POSTed to the main server and cached for `cacheTTLMs`;
 * then system:authenticated is added, and a request with no credential is system:anonymous.
 * The CAs, allowed names and header names come from the main server's kube-system/extension-apiserver-authentication
 * ConfigMap (see {@link publishAuthenticationInfo}), read with the connection's credentials and followed as it
 * changes. The caller identity needs kube's `system:auth-delegator` permissions and `extension-apiserver-authentication-reader`
 * (get/list/watch that ConfigMap) on the main server.
 *
 * @example
 * const authn = await delegatingAuthentication({ connection: { kubeconfig: '/etc/ext/kubeconfig' } });
 * const server = new GenericAPIServer({ storage, resources, authentication: authn.authentication, authorizer });
 * await serve(server.handler, { tls: { cert, key, clientCA: authn.clientCAs } });
 */
export async function delegatingAuthentication(options: DelegatingAuthenticationOptions): Promise<DelegatingAuthentication> {
  const config = connectionConfig(options.connection);
  const lookup = !options.skipInClusterLookup && (!options.clientCA || !options.requestHeader);
  let source: AuthenticationInfoSource | undefined;
  if (lookup) {
    source = new AuthenticationInfoSource(config, options.onError ? { onError: options.onError } : {});
    try {
      await source.start();
    } catch (err) {
      if (!options.tolerateInClusterLookupFailure) {
        source.close();
        throw err;
      }
      options.onError?.(err);
      // Keep trying in the background: the bundles fill in once the main server answers.
      void retryStart(source, options.onError);
    }
  }

  const authenticators: Authenticator[] = [];
  const clientCAs: CABundle[] = [];
  if (options.requestHeader) {
    authenticators.push(new RequestHeaderAuthenticator(options.requestHeader));
    clientCAs.push(options.requestHeader.ca);
  } else if (source) {
    authenticators.push(dynamicRequestHeader(source));
    clientCAs.push(source.requestHeaderCA);
  }
  const clientCA = options.clientCA ?? source?.clientCA;
  if (clientCA) {
    authenticators.push(whenCA(clientCA, new X509Authenticator({ ca: clientCA })));
    clientCAs.unshift(clientCA);
  }
  const ttl = options.cacheTTLMs ?? DEFAULT_DELEGATED_AUTHN_CACHE_TTL_MS;
  const webhook = new WebhookTokenAuthenticator(atPath(config, TOKEN_REVIEW_PATH), {
    timeoutMs: options.timeoutMs ?? DEFAULT_DELEGATED_AUTHN_TIMEOUT_MS,
    retryBackoff: options.retryBackoff ?? DEFAULT_WEBHOOK_RETRY_BACKOFF,
    ...(options.apiAudiences ? { apiAudiences: options.apiAudiences } : {}),
  });
  authenticators.push(new BearerTokenAuthenticator(new TokenCache(webhook, { successTtlMs: ttl, failureTtlMs: ttl })));

  return {
    authentication: {
      authenticator: withAuthenticatedGroup(unionAuthenticator(...authenticators)),
      anonymous: options.anonymous ?? true,
      ...(options.apiAudiences ? { apiAudiences: options.apiAudiences } : {}),
      ...(options.requestHeader ? { requestHeaders: options.requestHeader } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    },
    clientCAs,
    source,
    close() {
      source?.close();
      webhook.close();
    },
  };
}

async function retryStart(source: AuthenticationInfoSource, onError?: (err: unknown) => void): Promise<void> {
  for (let delay = 1000; ; delay = Math.min(delay * 2, 30_000)) {
    await new Promise((r) => setTimeout(r, delay).unref());
    if (source.closed) return;
    try {
      await source.start();
      return;
    } catch (err) {
      onError?.(err);
    }
  }
}

import { DEFAULT_WEBHOOK_RETRY_BACKOFF, type RetryBackoff } from '@kapi/authn';
import { type Authorizer, PrivilegedGroupsAuthorizer, unionAuthorizer, WebhookAuthorizer } from '@kapi/authz';
import { atPath, connectionConfig, type DelegationConnection } from './delegation-connection.ts';
import { pathAuthorizer } from './path-authorizer.ts';

/** k8s.io/apiserver's DelegatingAuthorizationOptions defaults: allowed and denied decisions kept 10 s, calls time out at 10 s. */
export const DEFAULT_DELEGATED_AUTHZ_ALLOW_TTL_MS = 10_000;
export const DEFAULT_DELEGATED_AUTHZ_DENY_TTL_MS = 10_000;
export const DEFAULT_DELEGATED_AUTHZ_TIMEOUT_MS = 10_000;
/** Its AlwaysAllowPaths and AlwaysAllowGroups defaults. */
export const DEFAULT_ALWAYS_ALLOW_PATHS: readonly string[] = ['/healthz', '/readyz', '/livez'];
export const DEFAULT_ALWAYS_ALLOW_GROUPS: readonly string[] = ['system:masters'];

const SAR_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

export interface DelegatingAuthorizationOptions {
  /** The main server and the credentials to call it with (kube's --authorization-kubeconfig). */
  connection: DelegationConnection;
  /** kube's --authorization-always-allow-paths. Default /healthz, /readyz, /livez. */
  alwaysAllowPaths?: readonly string[];
  /** Members may do anything without asking (kube's AlwaysAllowGroups). Default system:masters. */
  alwaysAllowGroups?: readonly string[];
  /** kube's --authorization-webhook-cache-authorized-ttl. Default 10 s. */
  allowCacheTTLMs?: number;
  /** kube's --authorization-webhook-cache-unauthorized-ttl. Default 10 s. */
  denyCacheTTLMs?: number;
  /** Per SubjectAccessReview call. Default 10 s. */
  timeoutMs?: number;
  retryBackoff?: RetryBackoff;
}

export interface DelegatingAuthorization {
  /** For GenericAPIServer's `authorizer` option. */
  authorizer: Authorizer;
  /** Closes the connections to the main server. */
  close(): void;
}

/**
 * k8s.io/apiserver's DelegatingAuthorizationOptions for an aggregated (extension) API server, in kube's order: members
 * of `alwaysAllowGroups` are allowed, then `alwaysAllowPaths` are allowed for anyone, then every other request becomes
 * a SubjectAccessReview POSTed to the main server (kube's webhook authorizer, reused from @kapi/authz) whose answer is
 * cached (allowed and denied for 10 s by default). The caller identity needs kube's `system:auth-delegator`
 * permissions on the main server. A main server that cannot be reached decides nothing: the request fails (500).
 *
 * @example
 * const authz = delegatingAuthorization({ connection: { kubeconfig: '/etc/ext/kubeconfig' } });
 * const server = new GenericAPIServer({ storage, resources, authentication, authorizer: authz.authorizer });
 */
export function delegatingAuthorization(options: DelegatingAuthorizationOptions): DelegatingAuthorization {
  const groups = options.alwaysAllowGroups ?? DEFAULT_ALWAYS_ALLOW_GROUPS;
  const paths = options.alwaysAllowPaths ?? DEFAULT_ALWAYS_ALLOW_PATHS;
  const webhook = new WebhookAuthorizer(atPath(connectionConfig(options.connection), SAR_PATH), {
    authorizedTTLMs: options.allowCacheTTLMs ?? DEFAULT_DELEGATED_AUTHZ_ALLOW_TTL_MS,
    unauthorizedTTLMs: options.denyCacheTTLMs ?? DEFAULT_DELEGATED_AUTHZ_DENY_TTL_MS,
    timeoutMs: options.timeoutMs ?? DEFAULT_DELEGATED_AUTHZ_TIMEOUT_MS,
    retryBackoff: options.retryBackoff ?? DEFAULT_WEBHOOK_RETRY_BACKOFF,
  });
  const authorizers: Authorizer[] = [
    ...(groups.length ? [new PrivilegedGroupsAuthorizer(...groups)] : []),
    ...(paths.length ? [pathAuthorizer(paths)] : []),
    webhook,
  ];
  return { authorizer: unionAuthorizer(...authorizers), close: () => webhook.close() };
}

export {
  AUTHENTICATION_INFO_KEYS,
  AUTHENTICATION_INFO_NAME,
  AUTHENTICATION_INFO_NAMESPACE,
  type AuthenticationInfo,
  authenticationInfoData,
  combineAuthenticationInfo,
  parseAuthenticationInfo,
} from './authentication-info.ts';
export { AuthenticationInfoSource, type AuthenticationInfoSourceOptions } from './authentication-info-source.ts';
export {
  DEFAULT_DELEGATED_AUTHN_CACHE_TTL_MS,
  DEFAULT_DELEGATED_AUTHN_TIMEOUT_MS,
  type DelegatingAuthentication,
  type DelegatingAuthenticationOptions,
  delegatingAuthentication,
} from './delegating-authentication.ts';
export {
  DEFAULT_ALWAYS_ALLOW_GROUPS,
  DEFAULT_ALWAYS_ALLOW_PATHS,
  DEFAULT_DELEGATED_AUTHZ_ALLOW_TTL_MS,
  DEFAULT_DELEGATED_AUTHZ_DENY_TTL_MS,
  DEFAULT_DELEGATED_AUTHZ_TIMEOUT_MS,
  type DelegatingAuthorization,
  type DelegatingAuthorizationOptions,
  delegatingAuthorization,
} from './delegating-authorization.ts';
export {
  connectionConfig,
  type DelegationConnection,
  inClusterConfig,
  NOT_IN_CLUSTER,
  SERVICE_ACCOUNT_DIR,
} from './delegation-connection.ts';
export { pathAuthorizer } from './path-authorizer.ts';
export {
  AUTHENTICATION_INFO_HOOK,
  type PublishAuthenticationInfoOptions,
  publishAuthenticationInfo,
} from './publish-authentication-info.ts';

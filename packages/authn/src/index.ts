export { aggregateErrors, aggregateMessage } from './aggregate-error.ts';
export { AnonymousAuthenticator } from './anonymous.ts';
export { audienceAgnosticToken, intersectAudiences } from './audiences.ts';
export { withAuthenticatedGroup } from './authenticated-group.ts';
export {
  AuthenticationConfigurationError,
  type AuthenticationConfigurationOptions,
  jwtAuthenticatorsFromConfiguration,
  jwtOptionsFromConfiguration,
} from './authentication-configuration.ts';
export type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
export { BasicAuthAuthenticator, INVALID_BASIC_AUTH } from './basic-auth.ts';
export { BearerTokenAuthenticator, bearerTokenOf, INVALID_BEARER_TOKEN, type TokenAuthenticator } from './bearer-token.ts';
export {
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BOOTSTRAP_USER_PREFIX,
  BOOTSTRAPPERS_GROUP,
  type BootstrapSecret,
  type BootstrapSecretGetter,
  BootstrapTokenAuthenticator,
  type BootstrapTokenOptions,
} from './bootstrap-token.ts';
export { type CABundle, parseCABundle, staticCABundle } from './ca-bundle.ts';
export { bearerTokenSource, CachedTokenFile, type CachedTokenFileOptions } from './cached-token-file.ts';
export { CsvParseError } from './csv.ts';
export { DynamicCABundle, type DynamicCABundleOptions } from './dynamic-ca-bundle.ts';
export { OIDC_SIGNING_ALGORITHMS, OIDCAuthenticator, type OIDCOptions } from './oidc.ts';
export { peerCertificates } from './peer-certificates.ts';
export {
  clearRequestHeaders,
  headersIn,
  RequestHeaderAuthenticator,
  type RequestHeaderAuthenticatorOptions,
  type RequestHeaderNameSet,
  type RequestHeaderNames,
  requestHeaderNames,
  requestHeadersToClear,
  STANDARD_REQUEST_HEADERS,
  userFromRequestHeaders,
} from './request-header.ts';
export {
  type ObjectGetter,
  ServiceAccountAuthenticator,
  type ServiceAccountAuthenticatorOptions,
} from './service-account-authenticator.ts';
export {
  ALL_SERVICE_ACCOUNTS_GROUP,
  type BoundObjectKind,
  CREDENTIAL_ID_KEY,
  LEGACY_SERVICE_ACCOUNT_ISSUER,
  type ObjectRef,
  parseServiceAccountUsername,
  serviceAccountNamespaceGroup,
  serviceAccountUsername,
} from './service-account-claims.ts';
export {
  generateServiceAccountKeyPEM,
  jwksOf,
  keyIdOf,
  loadOrCreateServiceAccountKey,
  type ServiceAccountKeySet,
  type ServiceAccountSigningAlgorithm,
  serviceAccountKeySet,
  type VerificationKey,
  verificationKeyFromPEM,
} from './service-account-keys.ts';
export {
  DEFAULT_TOKEN_EXPIRATION_SECONDS,
  type IssuedToken,
  MAX_TOKEN_EXPIRATION_SECONDS,
  MIN_TOKEN_EXPIRATION_SECONDS,
  ServiceAccountTokenIssuer,
  type ServiceAccountTokenIssuerOptions,
  type TokenClaimsRequest,
} from './service-account-token-issuer.ts';
export { DEFAULT_TOKEN_CACHE_TTL_MS, TokenCache, type TokenCacheOptions } from './token-cache.ts';
export { TokenFileAuthenticator, TokenFileError, type TokenFileOptions } from './token-file.ts';
export { unionAuthenticator } from './union.ts';
export { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, SYSTEM_MASTERS, type UserInfo } from './user-info.ts';
export { EKU_CLIENT_AUTH, verifyCertificateChain, verifyClientCertificate } from './verify-chain.ts';
export {
  DEFAULT_WEBHOOK_RETRY_BACKOFF,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  type RetryBackoff,
  type WebhookAttempt,
  WebhookCallError,
  WebhookClient,
  type WebhookClientConfig,
  type WebhookClientOptions,
  webhookTLSOptions,
} from './webhook-client.ts';
export { loadWebhookKubeconfig, webhookClientConfigOf } from './webhook-kubeconfig.ts';
export { WebhookTokenAuthenticator, type WebhookTokenOptions, webhookTokenAuthenticator } from './webhook-token.ts';
export { commonNameUser, UID_OID, X509Authenticator, type X509AuthenticatorOptions } from './x509.ts';

export type { AuditBackend } from './audit/backend.ts';
export { addAuditAnnotation, auditIDOf, recordAuditObjects, writeAuditedStatus } from './audit/context.ts';
export { LogAuditBackend } from './audit/log-backend.ts';
export { type AuditPolicy, levelAtLeast, policyAtLevel } from './audit/policy.ts';
export type { AuditEvent, AuditLevel, AuditObjectReference, AuditResponseStatus, AuditStage, AuditUserInfo } from './audit/types.ts';
export * from './delegation/index.ts';
export {
  type AggregatedDiscoveryOptions,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiResourceOfVirtual,
  apiResourcesOf,
  apiVersions,
  type DiscoveryEntries,
  type DiscoverySource,
  definitionSubresources,
  definitionsOf,
  discoveryETag,
  RESOURCE_VERBS,
  resourceDiscoveryOf,
  resourceDiscoveryOfVirtual,
  SCALE_KIND,
  SUBRESOURCE_VERBS,
  type SubresourceInfo,
  type VirtualResourceInfo,
  virtualResourcesOf,
} from './discovery/documents.ts';
export type { ExternalDiscovery, ExternalGroupVersion, GroupVersionPriority } from './discovery/external.ts';
export { aggregatedDiscoveryVersion, type DiscoveryHandlerOptions, discoveryHandler } from './discovery/handler.ts';
export { storageVersionHash } from './discovery/storage-version-hash.ts';
export type {
  APIGroup,
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIGroupList,
  APIResource,
  APIResourceDiscovery,
  APIResourceList,
  APISubresourceDiscovery,
  APIVersionDiscovery,
  APIVersions,
  DiscoveryFreshness,
  GroupVersionForDiscovery,
  GroupVersionKindJSON,
  ResourceScope,
  ServerAddressByClientCIDR,
} from './discovery/types.ts';
export { compareKubeAwareVersions, sortVersionsByPriority } from './discovery/version-priority.ts';
export {
  type BodyType,
  bodyTypeOf,
  contentTypeOf,
  type NegotiatedOutput,
  negotiateOutput,
  type OutputTarget,
  parseAccept,
  SUPPORTED_MEDIA_TYPES,
} from './endpoints/negotiation.ts';
export {
  decodeKubernetesProtobuf,
  encodeKubernetesProtobuf,
  KUBERNETES_PROTOBUF,
  type KubernetesProtobufDefaults,
  supportsKubernetesProtobuf,
} from './endpoints/protobuf/codec.ts';
export { decodeYAML } from './endpoints/request-body.ts';
export {
  type Admission,
  handleResource,
  type ResourceDeleter,
  type ResourceEndpoint,
  type ResourceHandlerOptions,
} from './endpoints/resource-handler.ts';
export { pathNotFound, wantsPretty, writeObject } from './endpoints/response.ts';
export {
  type SubresourceBody,
  type SubresourceConnecter,
  type SubresourceCreater,
  type SubresourceGetRequest,
  type SubresourceGetter,
  type SubresourceKind,
  type SubresourcePatcher,
  type SubresourceRequest,
  type SubresourceStorage,
  type SubresourceUpdater,
  type SubresourceWriteRequest,
  type SubresourceWriteResult,
  subresourceVerbs,
} from './endpoints/subresource-storage.ts';
export { finalizeSubresource } from './endpoints/subresources/finalize.ts';
export { proxySubresource, rewriteProxyLocation, splitSchemeNamePort } from './endpoints/subresources/proxy.ts';
export { scaleSubresource } from './endpoints/subresources/scale.ts';
export { statusSubresource } from './endpoints/subresources/status.ts';
export { AUDIT_ID_HEADER, type AuditOptions, formatMicroTime, withAudit } from './filters/audit.ts';
export { type AuthenticationOptions, UNAUTHORIZED_MESSAGE, withAuthentication } from './filters/authentication.ts';
export { type AuthorizationOptions, DECISION_ANNOTATION, REASON_ANNOTATION, withAuthorization } from './filters/authorization.ts';
export { authorizerAttributesFrom, NO_REQUEST_INFO } from './filters/authorizer-attributes.ts';
export {
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  type RequestBodyLimitOptions,
  readRequestBody,
  withRequestBodyLimit,
} from './filters/body-limit.ts';
export { compose } from './filters/compose.ts';
export { createRequestContext, type Filter, type Handler, type RequestContext } from './filters/context.ts';
export { type CorsOptions, withCors } from './filters/cors.ts';
export { deleteRequestHeader } from './filters/delete-header.ts';
export { withHsts } from './filters/hsts.ts';
export {
  IMPERSONATE_EXTRA_HEADER_PREFIX,
  IMPERSONATE_GROUP_HEADER,
  IMPERSONATE_UID_HEADER,
  IMPERSONATE_USER_HEADER,
  type ImpersonationOptions,
  withImpersonation,
} from './filters/impersonation.ts';
export { type MaxInFlightOptions, TOO_MANY_REQUESTS_MESSAGE, withMaxInFlightLimit } from './filters/max-in-flight.ts';
export { type PanicRecoveryOptions, withPanicRecovery } from './filters/panic-recovery.ts';
export { isLongRunning, withRequestInfo } from './filters/request-info.ts';
export { type Listening, listen, toRequestListener } from './filters/serve.ts';
export { TIMEOUT_MESSAGE, type TimeoutOptions, withTimeout } from './filters/timeout.ts';
export { addWarning, formatWarning, withWarnings } from './filters/warning.ts';
export { writeStatus } from './filters/write-status.ts';
export { type HealthCheck, type HealthEndpoint, healthHandler, namedHealthCheck, pingHealthCheck } from './health/healthz.ts';
export * from './leader-election/index.ts';
export { admissionMetrics } from './metrics/admission-metrics.ts';
export {
  APIServerMetrics,
  type APIServerMetricsOptions,
  type GroupVersionKind,
  type InflightCounts,
  type LongRunningMetricLabels,
  REQUEST_DURATION_BUCKETS,
  type RequestMetricLabels,
  type StorageObjectCounts,
} from './metrics/apiserver-metrics.ts';
export {
  AUTHENTICATION_DURATION_BUCKETS,
  AuthenticationMetrics,
  type AuthenticationResultLabel,
  compressUsername,
} from './metrics/authentication-metrics.ts';
export {
  AuthorizationMetrics,
  type AuthorizationResultLabel,
  type AuthorizerLabels,
  authorizerLabelsForMode,
  instrumentedAuthorizer,
} from './metrics/authorization-metrics.ts';
export { type AuthorizationWebhookMetrics, authorizationWebhookMetrics } from './metrics/authorization-webhook-metrics.ts';
export {
  APISERVER_COMPONENT,
  canonicalVerb,
  cleanDryRun,
  cleanScope,
  cleanVerbKube,
  OTHER_REQUEST_METHOD,
  reportedVerb,
} from './metrics/labels.ts';
export { metricsHandler } from './metrics/metrics-handler.ts';
export { requestMetricLabels, type WithMetricsOptions, withMetrics } from './metrics/with-metrics.ts';
export { type ExternalOpenAPI, type ExternalSwagger, filterSwaggerByPathPrefixes, mergeSwagger } from './openapi/external.ts';
export { MIME_V2_PROTOBUF, MIME_V2_PROTOBUF_DOTTED, type OpenAPIHandlerOptions, openAPIHandler } from './openapi/handler.ts';
export { definitionName } from './openapi/names.ts';
export {
  OpenAPIDocuments,
  type OpenAPIDocumentsOptions,
  type OpenAPIV3Index,
  openAPIETag,
  type ServedDocument,
  type ServedSwagger,
} from './openapi/served-documents.ts';
export { type SwaggerDocument, swaggerDocument, toV2Schema } from './openapi/v2-document.ts';
export { encodeSwaggerProtobuf, OpenAPIV2Document } from './openapi/v2-protobuf.ts';
export { DEFAULT_OPENAPI_INFO, groupVersionDocument, type OpenAPIInfo, type OpenAPIV3Document } from './openapi/v3-document.ts';
export { ProxyError, proxyErrorOf, writeProxyError } from './proxy/proxy-error.ts';
export { type ProxyLocation, type ProxyOptions, proxyRequest } from './proxy/upgrade-aware-proxy.ts';
export { type RequestInfo, RequestInfoError, RequestInfoResolver, type RequestInfoResolverOptions } from './request-info.ts';
export { authReviewResources } from './reviews/auth-reviews.ts';
export {
  AUTHORIZATION_GROUP,
  accessReviewStatus,
  reviewAttributes,
  selfSubjectAccessReviewResource,
  validateSelfSubjectAccessReview,
} from './reviews/self-subject-access-review.ts';
export { AUTHENTICATION_GROUP, SELF_SUBJECT_REVIEW_VERSIONS, selfSubjectReviewResources } from './reviews/self-subject-review.ts';
export { selfSubjectRulesReviewResource } from './reviews/self-subject-rules-review.ts';
export {
  localSubjectAccessReviewResource,
  reviewedUser,
  subjectAccessReviewResource,
  validateLocalSubjectAccessReview,
  validateSubjectAccessReview,
} from './reviews/subject-access-review.ts';
export { type TokenReviewOptions, tokenReviewResource } from './reviews/token-review.ts';
export {
  type APIProvider,
  type PostStartHook,
  type PreShutdownHook,
  qualifiedResource,
  type WriteCheck,
} from './server/api-provider.ts';
export {
  type CertificateAuthenticationOptions,
  certificateAuthentication,
  clientCAsOf,
} from './server/certificate-authentication.ts';
export {
  type AddResourceOptions,
  GenericAPIServer,
  type GenericAPIServerOptions,
  type LifecycleHook,
  type ResourcesChange,
  type ResourcesChangeListener,
} from './server/generic-api-server.ts';
export type { VirtualRequest, VirtualResource } from './server/virtual-resource.ts';
export {
  type IssuerDiscoveryOptions,
  issuerDiscoveryHandler,
  JWKS_PATH,
  OPENID_CONFIGURATION_PATH,
} from './serviceaccount/issuer-discovery.ts';
export { storeObjectGetter } from './serviceaccount/store-object-getter.ts';
export { type ServiceAccountTokenOptions, type TokenRequestOptions, tokenSubresource } from './serviceaccount/token-request.ts';
export {
  type ClientCAOptions,
  type ClientCertificateAuthority,
  type ClientCertificateOptions,
  clientCertificateAuthority,
  issueClientCertificate,
} from './serving/client-certificate.ts';
export { type KubeconfigOptions, kubeconfig, writeKubeconfig } from './serving/kubeconfig.ts';
export { type SelfSignedOptions, type ServingCertificate, selfSignedServingCertificate } from './serving/self-signed.ts';
export { type ServeOptions, type Serving, type ShutdownOptions, serve } from './serving/serve.ts';
export { hijackConnection, isUpgradeRequest } from './serving/upgrade.ts';
export { currentPlatform, kapiVersionInfo, type VersionInfo, type VersionOptions, versionHandler } from './version/version.ts';

export {
  type AggregatedDiscoveryOptions,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiResourcesOf,
  apiVersions,
  type DiscoverySource,
  discoveryETag,
  RESOURCE_VERBS,
  resourceDiscoveryOf,
  SCALE_KIND,
  SUBRESOURCE_VERBS,
} from './discovery/documents.ts';
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
export { DEFAULT_MAX_REQUEST_BODY_BYTES, readRequestBody, withRequestBodyLimit } from './filters/body-limit.ts';
export { compose } from './filters/compose.ts';
export { createRequestContext, type Filter, type Handler, type RequestContext } from './filters/context.ts';
export { type CorsOptions, withCors } from './filters/cors.ts';
export { withHsts } from './filters/hsts.ts';
export { type MaxInFlightOptions, TOO_MANY_REQUESTS_MESSAGE, withMaxInFlightLimit } from './filters/max-in-flight.ts';
export { type PanicRecoveryOptions, withPanicRecovery } from './filters/panic-recovery.ts';
export { type Listening, listen, toRequestListener } from './filters/serve.ts';
export { TIMEOUT_MESSAGE, type TimeoutOptions, withTimeout } from './filters/timeout.ts';
export { addWarning, formatWarning, withWarnings } from './filters/warning.ts';
export { writeStatus } from './filters/write-status.ts';
export { type HealthCheck, type HealthEndpoint, healthHandler, namedHealthCheck, pingHealthCheck } from './health/healthz.ts';
export { type RequestInfo, RequestInfoError, RequestInfoResolver, type RequestInfoResolverOptions } from './request-info.ts';
export { currentPlatform, kapiVersionInfo, type VersionInfo, type VersionOptions, versionHandler } from './version/version.ts';

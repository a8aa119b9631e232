export { type AggregatorProvider, type AggregatorProviderOptions, aggregatorProvider } from './aggregator-provider.ts';
export { APIServiceResource, apiServiceResource, localAvailableCondition } from './apiservice/apiservice-resource.ts';
export { apiServiceSchema } from './apiservice/schema.ts';
export {
  APIREGISTRATION_GROUP,
  type APIService,
  type APIServiceCondition,
  type APIServiceConditionStatus,
  type APIServiceServiceReference,
  type APIServiceSpec,
  type APIServiceStatus,
  AVAILABLE_CONDITION,
  LOCAL_AVAILABLE_MESSAGE,
  LOCAL_AVAILABLE_REASON,
} from './apiservice/types.ts';
export { apiServiceName, availableCondition, validateAPIService, validateAPIServiceStatus } from './apiservice/validation.ts';
export {
  AUTO_REGISTER_MANAGED_LABEL,
  AutoRegisterController,
  type AutoRegisterControllerOptions,
  MANAGE_CONTINUOUSLY,
  MANAGE_ON_START,
} from './autoregister/autoregister-controller.ts';
export {
  type APIServicePriority,
  apiServicePriority,
  DEFAULT_API_SERVICE_PRIORITY,
  KUBE_API_SERVICE_PRIORITIES,
} from './autoregister/priorities.ts';
export {
  localAPIService,
  registerServedAPIServices,
  type ServedAPIServicesOptions,
  type ServedSource,
  servedGroupVersions,
} from './autoregister/served-api-services.ts';
export {
  LocalAvailabilityController,
  type LocalAvailabilityControllerOptions,
  setAPIServiceCondition,
} from './availability/local-availability-controller.ts';
export {
  DiscoveryCheckError,
  RemoteAvailabilityController,
  type RemoteAvailabilityControllerOptions,
  type RemoteAvailabilityTransport,
} from './availability/remote-availability-controller.ts';
export {
  RemoteDiscovery,
  type RemoteDiscoveryOptions,
  type RemoteDiscoveryTransport,
  resourcesToDiscovery,
} from './discovery/remote-discovery.ts';
export { RemoteOpenAPI, type RemoteOpenAPIOptions, type RemoteOpenAPITransport } from './openapi/remote-openapi.ts';
export { APIServiceProxy, type APIServiceProxyOptions } from './proxy/apiservice-proxy.ts';
export { goQueryEncode, headerKeyEscape, setAuthProxyHeaders } from './proxy/auth-proxy-headers.ts';
export {
  RemoteServiceError,
  type RemoteServiceErrorReason,
  type RemoteTarget,
  RemoteTransport,
  RemoteTransportError,
  type RemoteTransportOptions,
} from './remote/remote-transport.ts';

import type { ServiceResolver } from '@kapi/admission';
import type { Store } from '@kapi/registry';
import type { APIProvider, GenericAPIServer, HealthCheck } from '@kapi/server-core';
import { APIServiceResource } from './apiservice/apiservice-resource.ts';
import { APIREGISTRATION_GROUP, type APIService } from './apiservice/types.ts';
import { availableCondition } from './apiservice/validation.ts';
import { AutoRegisterController } from './autoregister/autoregister-controller.ts';
import { registerServedAPIServices, type ServedAPIServicesOptions, type ServedSource } from './autoregister/served-api-services.ts';
import { LocalAvailabilityController } from './availability/local-availability-controller.ts';
import { RemoteAvailabilityController } from './availability/remote-availability-controller.ts';
import { RemoteDiscovery } from './discovery/remote-discovery.ts';
import { RemoteOpenAPI } from './openapi/remote-openapi.ts';
import { APIServiceProxy } from './proxy/apiservice-proxy.ts';
import { RemoteTransport } from './remote/remote-transport.ts';

export interface AggregatorProviderOptions extends ServedAPIServicesOptions {
  /** Told of failed syncs of the controllers (they are retried). */
  onError?: (err: unknown) => void;
  /**
   * The server whose group-versions (its own and its delegates') get local APIServices, asked at start. Default: the
   * server the provider is installed in, which is right when that server is the one every request enters (kube's
   * aggregator wraps the chain); give the chain's first server when the provider sits in a delegate.
   */
  servedBy?: () => ServedSource;
  /**
   * Where remote APIServices' Services are (admission's ServiceResolver, e.g. endpointsServiceResolver). Without it
   * remote APIServices are neither checked nor fetched.
   */
  serviceResolver?: ServiceResolver;
  /** The proxy client certificate (PEM) presented to remote servers (kube's --proxy-client-cert-file). */
  proxyClientCert?: string | Buffer;
  /** Its key (kube's --proxy-client-key-file). */
  proxyClientKey?: string | Buffer;
}

/** The provider and the controller it starts (for tests and health checks). */
export interface AggregatorProvider extends APIProvider {
  /** The transport to remote APIServices (with `serviceResolver`). */
  readonly remoteTransport: RemoteTransport | undefined;
  /** Remote group-versions and APIService priorities in the server's discovery (kube's discovery manager). */
  readonly discovery: RemoteDiscovery;
  /** Remote specs in the server's OpenAPI (kube's OpenAPI v2 and v3 aggregation controllers). */
  readonly openAPI: RemoteOpenAPI;
  /** The autoregister controller, once the server started. */
  readonly autoRegister: () => AutoRegisterController | undefined;
  /**
   * kube's boot-sequence check `autoregister-completion`: fails (`missing APIService: [names]`) until every APIService
   * registered at start has been seen Available. Give it to the server's `healthChecks` (a provider cannot add checks).
   */
  readonly healthCheck: HealthCheck;
}

/**
 * apiregistration.k8s.io/v1 APIService served by a GenericAPIServer, with kube's post-start hooks
 * `apiservice-status-local-available-controller` (local APIServices kept Available) and
 * `kube-apiserver-autoregistration` (a local APIService for every group-version the server and its delegates serve,
 * kept as kinds come and go). Install it in the server last in the chain (the one every request enters, whose
 * definitions() list every server's kinds): `new GenericAPIServer({ …, delegate, providers: [aggregatorProvider()] })`.
 */
export function aggregatorProvider(options: AggregatorProviderOptions = {}): AggregatorProvider {
  let controller: AutoRegisterController | undefined;
  let unfollow: (() => void) | undefined;
  let availability: LocalAvailabilityController | undefined;
  let remoteAvailability: RemoteAvailabilityController | undefined;
  const transport = options.serviceResolver
    ? new RemoteTransport({
        serviceResolver: options.serviceResolver,
        proxyClientCert: options.proxyClientCert,
        proxyClientKey: options.proxyClientKey,
      })
    : undefined;
  const apiServicesOf = (server: GenericAPIServer, hook: string): Store<APIService> => {
    const store = server.store(`apiservices.${APIREGISTRATION_GROUP}`);
    if (!store) throw new Error(`${hook}: the server does not serve apiservices`);
    return store as unknown as Store<APIService>;
  };
  const onError = options.onError ? { onError: options.onError } : {};
  const discovery = new RemoteDiscovery({ transport, ...onError });
  const openAPI = new RemoteOpenAPI({ transport, ...onError });
  const proxy = new APIServiceProxy({ transport, ...onError });
  let apiServices: Store<APIService> | undefined;
  /** The APIServices registered at start not yet seen Available; undefined before start. */
  let pending: Set<string> | undefined;
  const healthCheck: HealthCheck = {
    name: 'autoregister-completion',
    async check() {
      if (!pending || !apiServices) throw new Error('autoregister has not started');
      if (pending.size > 0) {
        // Once seen Available, a name is done for good (kube's check forgets it too); read from the watch cache.
        const list = await apiServices.list({}, { resourceVersion: '0' });
        for (const s of list.items) if (availableCondition(s)?.status === 'True') pending.delete(s.metadata.name ?? '');
      }
      // Go's %v of a sorted []string.
      if (pending.size > 0) throw new Error(`missing APIService: [${[...pending].sort().join(' ')}]`);
    },
  };
  return {
    name: APIREGISTRATION_GROUP,
    resources: [APIServiceResource],
    autoRegister: () => controller,
    healthCheck,
    remoteTransport: transport,
    discovery,
    openAPI,
    // Requests for remote APIServices' group-versions go to their servers (kube's proxyHandler).
    routes: [proxy.route],
    postStartHooks: [
      {
        // kube-aggregator's local half of the availability controller.
        name: 'apiservice-status-local-available-controller',
        run: async (server: GenericAPIServer) => {
          availability = new LocalAvailabilityController({
            apiServices: apiServicesOf(server, 'apiservice-status-local-available-controller'),
            ...onError,
          });
          await availability.start();
        },
      },
      {
        // kube-aggregator's remote half: remote APIServices' Available condition from their servers' discovery.
        name: 'apiservice-status-remote-available-controller',
        run: async (server: GenericAPIServer) => {
          if (!transport) return;
          remoteAvailability = new RemoteAvailabilityController({
            apiServices: apiServicesOf(server, 'apiservice-status-remote-available-controller'),
            transport,
            // The chain's core/v1 Services and Endpoints, when it serves them: their changes have APIServices rechecked.
            services: server.store('services'),
            endpoints: server.store('endpoints'),
            ...onError,
          });
          await remoteAvailability.start();
        },
      },
      {
        // kube's discovery manager: remote group-versions' documents fetched into the server's discovery.
        name: 'apiservice-discovery-controller',
        run: (server: GenericAPIServer) => discovery.start(apiServicesOf(server, 'apiservice-discovery-controller')),
      },
      {
        // kube's apiservice-openapi-controller and apiservice-openapiv3-controller in one.
        name: 'apiservice-openapi-controller',
        run: (server: GenericAPIServer) => openAPI.start(apiServicesOf(server, 'apiservice-openapi-controller')),
      },
      {
        // kube's APIServiceRegistrationController: the proxy follows the APIServices.
        name: 'apiservice-registration-controller',
        run: (server: GenericAPIServer) => proxy.start(apiServicesOf(server, 'apiservice-registration-controller')),
      },
      {
        name: 'kube-apiserver-autoregistration',
        run: async (server: GenericAPIServer) => {
          apiServices = apiServicesOf(server, 'kube-apiserver-autoregistration');
          controller = new AutoRegisterController({ apiServices, ...onError });
          unfollow = registerServedAPIServices(options.servedBy?.() ?? server, controller, options);
          pending = new Set(controller.desired().map((s) => s.metadata.name ?? ''));
          await controller.start();
        },
      },
    ],
    preShutdownHooks: [
      {
        name: 'kube-apiserver-autoregistration',
        run: () => {
          unfollow?.();
          controller?.stop();
          availability?.stop();
          remoteAvailability?.stop();
          discovery.stop();
          openAPI.stop();
          proxy.stop();
          transport?.close();
        },
      },
    ],
  };
}

import type { Store } from '@kapi/registry';
import type { APIProvider, GenericAPIServer } from '@kapi/server-core';
import { APIServiceResource } from './apiservice/apiservice-resource.ts';
import { APIREGISTRATION_GROUP, type APIService } from './apiservice/types.ts';
import { AutoRegisterController } from './autoregister/autoregister-controller.ts';
import { registerServedAPIServices, type ServedAPIServicesOptions, type ServedSource } from './autoregister/served-api-services.ts';
import { LocalAvailabilityController } from './availability/local-availability-controller.ts';

export interface AggregatorProviderOptions extends ServedAPIServicesOptions {
  /** Told of failed syncs of the controllers (they are retried). */
  onError?: (err: unknown) => void;
  /**
   * The server whose group-versions (its own and its delegates') get local APIServices, asked at start. Default: the
   * server the provider is installed in, which is right when that server is the one every request enters (kube's
   * aggregator wraps the chain); give the chain's first server when the provider sits in a delegate.
   */
  servedBy?: () => ServedSource;
}

/** The provider and the controller it starts (for tests and health checks). */
export interface AggregatorProvider extends APIProvider {
  /** The autoregister controller, once the server started. */
  readonly autoRegister: () => AutoRegisterController | undefined;
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
  const apiServicesOf = (server: GenericAPIServer, hook: string): Store<APIService> => {
    const store = server.store(`apiservices.${APIREGISTRATION_GROUP}`);
    if (!store) throw new Error(`${hook}: the server does not serve apiservices`);
    return store as unknown as Store<APIService>;
  };
  const onError = options.onError ? { onError: options.onError } : {};
  return {
    name: APIREGISTRATION_GROUP,
    resources: [APIServiceResource],
    autoRegister: () => controller,
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
        name: 'kube-apiserver-autoregistration',
        run: async (server: GenericAPIServer) => {
          controller = new AutoRegisterController({ apiServices: apiServicesOf(server, 'kube-apiserver-autoregistration'), ...onError });
          unfollow = registerServedAPIServices(options.servedBy?.() ?? server, controller, options);
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
        },
      },
    ],
  };
}

import type { Store } from '@kapi/registry';
import type { APIProvider, GenericAPIServer } from '@kapi/server-core';
import { APIServiceResource } from './apiservice/apiservice-resource.ts';
import { APIREGISTRATION_GROUP, type APIService } from './apiservice/types.ts';
import { AutoRegisterController } from './autoregister/autoregister-controller.ts';
import { registerServedAPIServices, type ServedAPIServicesOptions } from './autoregister/served-api-services.ts';

export interface AggregatorProviderOptions extends ServedAPIServicesOptions {
  /** Told of failed syncs of the autoregister controller (they are retried). */
  onError?: (err: unknown) => void;
}

/** The provider and the controller it starts (for tests and health checks). */
export interface AggregatorProvider extends APIProvider {
  /** The autoregister controller, once the server started. */
  readonly autoRegister: () => AutoRegisterController | undefined;
}

/**
 * apiregistration.k8s.io/v1 APIService served by a GenericAPIServer, and kube's post-start hook
 * `kube-apiserver-autoregistration`: a local APIService for every group-version the server and its delegates serve,
 * kept as kinds come and go. Install it in the server last in the chain (the one every request enters, whose
 * definitions() list every server's kinds): `new GenericAPIServer({ …, delegate, providers: [aggregatorProvider()] })`.
 */
export function aggregatorProvider(options: AggregatorProviderOptions = {}): AggregatorProvider {
  let controller: AutoRegisterController | undefined;
  let unfollow: (() => void) | undefined;
  return {
    name: APIREGISTRATION_GROUP,
    resources: [APIServiceResource],
    autoRegister: () => controller,
    postStartHooks: [
      {
        name: 'kube-apiserver-autoregistration',
        run: async (server: GenericAPIServer) => {
          const store = server.store(`apiservices.${APIREGISTRATION_GROUP}`);
          if (!store) throw new Error('kube-apiserver-autoregistration: the server does not serve apiservices');
          controller = new AutoRegisterController({
            apiServices: store as unknown as Store<APIService>,
            ...(options.onError ? { onError: options.onError } : {}),
          });
          unfollow = registerServedAPIServices(server, controller, options);
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
        },
      },
    ],
  };
}

import { type Clock, realClock } from '@kapi/apimachinery';
import { ControllerLoop, type Store } from '@kapi/registry';
import type { APIProvider, GenericAPIServer } from '@kapi/server-core';
import type { ConversionCRD } from '../conversion/converter-factory.ts';
import { crdConversion } from '../conversion/crd-conversion.ts';
import type { WebhookConverterOptions } from '../conversion/webhook-converter.ts';
import { CustomResourceDefinitionResource } from '../crd/crd-resource.ts';
import type { CustomResourceDefinition } from '../crd/types.ts';
import { CRDInformer } from './crd-informer.ts';
import { CRDServingController } from './crd-serving-controller.ts';
import { EstablishingController } from './establishing-controller.ts';
import { FinalizerController } from './finalizer-controller.ts';
import { NamingController } from './naming-controller.ts';

const CRD_RESOURCE = 'customresourcedefinitions.apiextensions.k8s.io';

export interface APIExtensionsOptions {
  /** Conditions' times, retries, and conversion webhooks' timeouts (unless `webhook.clock`). Default real time. */
  clock?: Clock;
  /**
   * How CRDs' conversion webhooks are reached: the resolver of `clientConfig.service` (default kube's
   * `<name>.<namespace>.svc:<port>`), and the HTTP client's settings.
   */
  webhook?: WebhookConverterOptions;
  /** How long before failed work is tried again. Default 1000 ms. */
  retryAfterMs?: number;
  /** Told of failed work (it is retried); default: console.error. */
  onError?: (err: unknown, what: string) => void;
}

/**
 * kube's apiextensions-apiserver as a package installed into a GenericAPIServer (`providers: [apiextensions.provider()]`),
 * the first server of kube's chain (APIExtensions → the control plane's kinds → Aggregator): it serves
 * apiextensions.k8s.io/v1 CustomResourceDefinition and runs its controllers — names (NamesAccepted), establishing
 * (Established), the instances' cleanup when a CRD is deleted (customresourcecleanup finalizer), and the serving of
 * every accepted CRD's kind on the server (added, swapped on change, removed). start() returns once the CRDs stored
 * before it are served (kube's crd-informer-synced).
 */
export class APIExtensions {
  readonly informer = new CRDInformer();
  readonly #options: APIExtensionsOptions;
  readonly #loops: ControllerLoop[] = [];
  #serving: CRDServingController | undefined;
  #servingLoop: ControllerLoop | undefined;

  constructor(options: APIExtensionsOptions = {}) {
    this.#options = options;
  }

  /** The CRD kind and the post-start hooks that run the controllers (GenericAPIServerOptions.providers). */
  provider(): APIProvider {
    return {
      name: 'apiextensions.k8s.io',
      resources: [CustomResourceDefinitionResource],
      postStartHooks: [
        { name: 'start-apiextensions-controllers', run: (server) => this.#start(server) },
        { name: 'crd-informer-synced', run: () => this.#servedAtStart() },
      ],
      preShutdownHooks: [{ name: 'apiextensions/stop', run: () => this.stop() }],
    };
  }

  /** Stops the informer and the controllers. */
  stop(): void {
    for (const loop of this.#loops) loop.stop();
    this.#loops.length = 0;
    this.#serving?.forget();
  }

  #onError(err: unknown, what: string): void {
    if (this.#options.onError) this.#options.onError(err, what);
    else console.error(`apiextensions: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  #start(server: GenericAPIServer): void {
    const clock = this.#options.clock ?? realClock;
    const crds = (): Store => {
      const store = server.store(CRD_RESOURCE);
      if (!store) throw new Error(`${CRD_RESOURCE} is not served`);
      return store;
    };
    const informer = this.informer;
    // None needs no conversion of its own (only apiVersion changes, on the synchronous path). A validated CRD has the
    // fields a conversion reads.
    const conversion = (crd: CustomResourceDefinition) =>
      crd.spec.conversion?.strategy === 'Webhook'
        ? crdConversion(crd as unknown as ConversionCRD, { clock, ...this.#options.webhook })
        : undefined;
    const serving = new CRDServingController({
      informer,
      server: () => server,
      conversion,
      onError: (err, name) => this.#onError(err, `serve customresourcedefinition ${name}`),
    });
    this.#serving = serving;
    const naming = new NamingController({ informer, crds, clock });
    const establishing = new EstablishingController({ informer, crds, clock });
    const finalizer = new FinalizerController({ informer, crds, instances: (crd) => serving.store(crd), clock });
    const loop = (what: string, sync: (name: string) => Promise<unknown>) => {
      const l = new ControllerLoop(
        {
          clock,
          ...(this.#options.retryAfterMs !== undefined ? { retryAfterMs: this.#options.retryAfterMs } : {}),
          onError: (err, key) => this.#onError(err, `${what} ${key ?? ''}`.trim()),
        },
        sync,
      );
      this.#loops.push(l);
      return l;
    };
    const loops = {
      serving: loop('serve customresourcedefinition', (name) => serving.sync(name)),
      naming: loop('accept names of customresourcedefinition', (name) => naming.sync(name)),
      establishing: loop('establish customresourcedefinition', (name) => establishing.sync(name)),
      finalizer: loop('clean up customresourcedefinition', (name) => finalizer.sync(name)),
    };
    informer.onEvent((type, crd, old) => {
      const name = crd.metadata.name ?? '';
      for (const key of naming.keysFor(crd)) loops.naming.queue.add(key);
      loops.serving.queue.add(name);
      if (type === 'DELETED') return;
      loops.establishing.queue.add(name);
      if (FinalizerController.wants(crd, old)) loops.finalizer.queue.add(name);
    });
    this.#servingLoop = loops.serving;
    // The queues open now; the informer runs on the first loop's signal (all stop together).
    const [first, ...rest] = Object.values(loops);
    for (const l of rest) l.start(() => {});
    first?.start((informerLoop) => void informer.run(crds(), informerLoop));
  }

  /** Resolves once every CRD listed at start was looked at by the serving controller. */
  async #servedAtStart(): Promise<void> {
    await this.informer.synced;
    await this.#servingLoop?.queue.idle();
  }
}

import { type Clock, realClock } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/registry';
import type { AdmissionAttributes, Operation } from '../../attributes.ts';
import { admissionForbidden } from '../../forbidden.ts';
import type { ValidatingAdmission } from '../../plugin.ts';
import type { LimitedResource } from './quota-check.ts';
import { type CountedStore, QuotaController } from './quota-controller.ts';
import { QuotaEvaluator, type QuotaStore } from './quota-evaluator.ts';
import { ResourceQuota } from './resource-quota.ts';

/** What quota needs of the server it runs in (a GenericAPIServer of @kapi/server-core is one). */
export interface ResourceQuotaHost {
  /** The store of `plural` (core group) or `plural.group`; undefined when not served. */
  store(resource: string): unknown;
  /**
   * The server's leader election when several processes serve one control plane (GenericAPIServer's): the quota
   * controller, kube-controller-manager's, then runs only while this process leads; admission runs everywhere.
   */
  readonly leaderElection?: { add(name: string, controller: { start(): Promise<void>; stop(): void }): void } | undefined;
}

export interface ResourceQuotaAdmissionOptions {
  /** Timers of the controller's resync and retries, and of admission's wait for the start. */
  clock?: Clock;
  /** How often the controller recalculates every quota (kube's --resource-quota-sync-period). Default 5 minutes. */
  resyncPeriodMs?: number;
  /** Run the quota controller in this server (kube-controller-manager's). Default true. */
  controller?: boolean;
  /**
   * Resources whose creation needs a quota of the namespace covering them (the plugin configuration's
   * limitedResources; parseResourceQuotaConfiguration reads it): refused with `insufficient quota to consume` otherwise.
   */
  limitedResources?: readonly LimitedResource[];
  /** Told of failed syncs, lists and watches (all retried). Default console.error. */
  onError?: (err: unknown, what: string) => void;
}

/** kube's admission plugin name. */
export const RESOURCE_QUOTA_PLUGIN = 'ResourceQuota';
/** How long a request waits for the start before it is refused (kube's WaitForReady). */
const READY_TIMEOUT_MS = 10_000;
/** Resources quota never counts (kube's DefaultIgnoredResources). */
const IGNORED = new Set(['events']);
const HANDLED: ReadonlySet<Operation> = new Set(['CREATE', 'UPDATE']);

/**
 * ResourceQuota as kube-apiserver and kube-controller-manager run it, for object counts: the ResourceQuota kind, the
 * `ResourceQuota` validating admission plugin (a create of any namespaced kind is charged to every quota of its
 * namespace that counts it by `count/<resource>[.<group>]`, or by the legacy name of a core kind, and refused past
 * status.hard), and the quota controller keeping status.used. Install `provider()` on a GenericAPIServer and put
 * `plugin` in its admission chain.
 *
 * @example
 * const quota = new ResourceQuotaAdmission();
 * const server = new GenericAPIServer({ storage, resources, providers: [quota.provider()], admission: new AdmissionChain([quota.plugin]) });
 */
export class ResourceQuotaAdmission {
  readonly plugin: ValidatingAdmission;
  readonly #options: ResourceQuotaAdmissionOptions;
  readonly #clock: Clock;
  readonly #evaluator: QuotaEvaluator;
  #host: ResourceQuotaHost | undefined;
  #controller: QuotaController | undefined;
  #ready: () => void = () => {};
  readonly #whenReady = new Promise<void>((resolve) => {
    this.#ready = resolve;
  });

  constructor(options: ResourceQuotaAdmissionOptions = {}) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#evaluator = new QuotaEvaluator(() => this.#quotas(), this.#clock, options.limitedResources ?? []);
    this.plugin = {
      name: RESOURCE_QUOTA_PLUGIN,
      handles: (op) => HANDLED.has(op),
      validate: (attrs) => this.#validate(attrs),
    };
  }

  /** The kind and the hook starting quota in the server (GenericAPIServerOptions.providers). */
  provider(): {
    name: string;
    resources: readonly ResourceDefinition[];
    postStartHooks: { name: string; run(server: ResourceQuotaHost): Promise<void> }[];
    preShutdownHooks: { name: string; run(): void }[];
  } {
    return {
      name: 'resourcequota',
      resources: [ResourceQuota as unknown as ResourceDefinition],
      postStartHooks: [{ name: 'start-resourcequota', run: (server) => this.start(server) }],
      preShutdownHooks: [{ name: 'resourcequota/stop', run: () => this.stop() }],
    };
  }

  /** Binds quota to the server's stores and starts the controller; resolves when it listed the quotas. */
  async start(host: ResourceQuotaHost): Promise<void> {
    this.#host = host;
    this.#quotas();
    if (this.#options.controller !== false) {
      this.#controller = new QuotaController({
        quotas: this.#quotas(),
        store: (resource) => host.store(resource) as CountedStore | undefined,
        clock: this.#clock,
        ...(this.#options.resyncPeriodMs !== undefined ? { resyncPeriodMs: this.#options.resyncPeriodMs } : {}),
        onError: (err, key) => this.#onError(err, key ? `sync resourcequota ${key}` : 'resourcequota controller'),
      });
      if (host.leaderElection) host.leaderElection.add('resourcequota-controller', this.#controller);
      else await this.#controller.start();
    }
    this.#ready();
  }

  stop(): void {
    this.#controller?.stop();
  }

  /** The controller (after start), e.g. to wait until it has no work left. */
  get controller(): QuotaController | undefined {
    return this.#controller;
  }

  #quotas(): QuotaStore {
    const store = this.#host?.store('resourcequotas');
    if (!store) throw new Error('ResourceQuota admission needs resourcequotas served by this server (install its provider)');
    return store as QuotaStore;
  }

  #onError(err: unknown, what: string): void {
    if (this.#options.onError) this.#options.onError(err, what);
    else console.error(`resourcequota: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  async #validate(attrs: AdmissionAttributes): Promise<void> {
    // Subresources, cluster-scoped kinds and namespaces are never charged.
    if (attrs.subresource !== '' || attrs.namespace === '') return;
    if (attrs.resource.group === '' && attrs.resource.resource === 'namespaces') return;
    if (!this.#host && !(await this.#waitForReady())) throw admissionForbidden(attrs, 'not yet ready to handle request');
    if (attrs.resource.group === '' && IGNORED.has(attrs.resource.resource)) return;
    // The object-count evaluator handles creates only.
    if (attrs.operation !== 'CREATE') return;
    await this.#evaluator.evaluate(attrs);
  }

  #waitForReady(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(() => resolve(false), READY_TIMEOUT_MS);
      void this.#whenReady.then(() => {
        this.#clock.clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

import { type Clock, type KubeObject, realClock } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import type { ResourceDefinition, Store } from '@kapi/registry';
import type { ObjectCache } from './admissionregistration/object-cache.ts';
import { admissionRegistrationResources } from './admissionregistration/resources.ts';
import type {
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
} from './admissionregistration/types.ts';
import type { AdmissionChain } from './chain.ts';
import type { AdmissionConfiguration } from './config/admission-configuration.ts';
import { type AdmissionPluginFactory, AdmissionPluginRegistry } from './config/plugin-registry.ts';
import { hostObjectCache, type StoreHost } from './host-object-cache.ts';
import { type HostParamSource, hostParamSource } from './host-param-source.ts';
import type { NamespaceLookup } from './matching/match-attributes.ts';
import type { AdmissionMetrics } from './metrics.ts';
import type { AdmissionPlugin } from './plugin.ts';
import { denyAll } from './plugin-factory.ts';
import { ALWAYS_ADMIT, alwaysAdmit } from './plugins/always-admit.ts';
import {
  OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
  ownerReferencesPermissionEnforcement,
} from './plugins/owner-references/owner-references-permission.ts';
import { restMapperFor } from './plugins/owner-references/rest-mapper.ts';
import { ResourceQuota } from './plugins/resource-quota/resource-quota.ts';
import { RESOURCE_QUOTA_PLUGIN, ResourceQuotaAdmission } from './plugins/resource-quota/resource-quota-admission.ts';
import { parseResourceQuotaConfiguration } from './plugins/resource-quota/resource-quota-configuration.ts';
import { VALIDATING_ADMISSION_POLICY_PLUGIN_NAME, ValidatingAdmissionPolicyPlugin } from './policy/plugin.ts';
import { type KindSchemas, PolicyTypeCheckingController, TYPE_CHECKING_CONTROLLER_NAME } from './policy/type-checking.ts';
import { type AuthenticationInfoResolver, webhookAuthenticationFromConfig } from './webhook/authentication-info.ts';
import { MUTATING_WEBHOOK_PLUGIN_NAME, MutatingWebhooks } from './webhook/mutating-webhooks.ts';
import type { ServiceResolver } from './webhook/service-resolver.ts';
import { VALIDATING_WEBHOOK_PLUGIN_NAME, ValidatingWebhooks } from './webhook/validating-webhooks.ts';

/** What admission needs of the server whose writes it admits (a GenericAPIServer of @kapi/server-core is one). */
export interface AdmissionControlHost extends StoreHost {
  /** The store of `plural` (core group) or `plural.group`, this server's or a delegate's; undefined when not served. */
  store(resource: string): unknown;
  /** Every served kind, this server's and its delegates' (param kinds, owner kinds). */
  definitions(): readonly ResourceDefinition[];
}

export interface AdmissionControlOptions {
  /** kube's --enable-admission-plugins: plugins on besides the default ones. */
  enable?: readonly string[];
  /** kube's --disable-admission-plugins. NamespaceLifecycle cannot be turned off (server-core enforces it). */
  disable?: readonly string[];
  /** kube's --admission-control-config-file, read; or `configFile` to read it. */
  config?: AdmissionConfiguration;
  configFile?: string;
  /** Plugins of your own by name, enabled like kube's (`enable`), ordered before the webhooks, quota and deny plugins. */
  plugins?: Readonly<Record<string, AdmissionPluginFactory>>;
  /** The server's whole authorizer, read at each check (it is usually built after admission). */
  authorizer?: () => Authorizer;
  /** `<namespace>/<name>[:<port>]` → URL: where a webhook's `clientConfig.service` is reached (no Services here). */
  services?: Readonly<Record<string, string | URL>>;
  /** Or a resolver of your own for `clientConfig.service`. */
  serviceResolver?: ServiceResolver;
  /** Credentials presented to webhooks (kube's WebhookAdmissionConfiguration kubeConfigFile). */
  webhookAuthentication?: AuthenticationInfoResolver;
  /** Step, plugin, webhook and policy metrics (server-core's `admissionMetrics(registry)`). */
  metrics?: AdmissionMetrics;
  /**
   * The served kinds' CEL types, for type checking policies against the kinds they match (status.typeChecking, as
   * kube's policy status controller writes it). Without it policies are not type-checked.
   */
  kindSchemas?: (host: AdmissionControlHost) => KindSchemas;
  /** The quota controller's resync period (kube's --resource-quota-sync-period). Default 5 minutes. */
  quotaResyncPeriodMs?: number;
  clock?: Clock;
  /** Told of failed lists, watches and syncs (all retried). Default console.error. */
  onError?: (err: unknown, what: string) => void;
}

type PolicyStatusStore = Pick<Store<KubeObject>, 'update'>;

/** The NamespaceLifecycle plugin's name: server-core's Stores enforce it for every namespaced kind, always. */
const NAMESPACE_LIFECYCLE = 'NamespaceLifecycle';

const RESOURCES = {
  mutating: 'mutatingwebhookconfigurations.admissionregistration.k8s.io',
  validating: 'validatingwebhookconfigurations.admissionregistration.k8s.io',
  policies: 'validatingadmissionpolicies.admissionregistration.k8s.io',
  bindings: 'validatingadmissionpolicybindings.admissionregistration.k8s.io',
  namespaces: 'namespaces',
} as const;

/**
 * kube-apiserver's admission, assembled: the plugins by kube's names (NamespaceLifecycle, AlwaysAdmit, AlwaysDeny,
 * OwnerReferencesPermissionEnforcement, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook,
 * ResourceQuota, and yours) enabled as kube's flags say and ordered as kube orders them; the admissionregistration.k8s.io
 * kinds and ResourceQuota served; the webhook configurations, policies, bindings and namespaces kept in memory from the
 * server's watch caches, and the quota controller run, from the server's start.
 *
 * @example
 * const admission = new AdmissionControl({ enable: ['AlwaysPullImages'], authorizer: () => authorizer });
 * const server = new GenericAPIServer({ storage, resources, providers: [admission.provider()], admission: admission.chain });
 */
export class AdmissionControl {
  /** The chain to give the server (GenericAPIServerOptions.admission). */
  readonly chain: AdmissionChain;
  /** The names of the enabled plugins, in the order they run. */
  readonly enabled: readonly string[];
  readonly #options: AdmissionControlOptions;
  readonly #abort = new AbortController();
  readonly #caches: {
    mutating?: ObjectCache<MutatingWebhookConfiguration & KubeObject>;
    validating?: ObjectCache<ValidatingWebhookConfiguration & KubeObject>;
    policies?: ObjectCache<ValidatingAdmissionPolicy & KubeObject>;
    bindings?: ObjectCache<ValidatingAdmissionPolicyBinding & KubeObject>;
    namespaces?: ObjectCache<KubeObject>;
  } = {};
  #host: AdmissionControlHost | undefined;
  #quota: ResourceQuotaAdmission | undefined;
  #params: HostParamSource | undefined;
  #ready: () => void = () => {};
  readonly #whenReady = new Promise<void>((resolve) => {
    this.#ready = resolve;
  });

  constructor(options: AdmissionControlOptions = {}) {
    this.#options = options;
    if (options.disable?.includes(NAMESPACE_LIFECYCLE))
      throw new Error(`${NAMESPACE_LIFECYCLE} cannot be disabled: every namespaced kind's Store enforces it in kapi`);
    const registry = new AdmissionPluginRegistry();
    this.#register(registry);
    for (const [name, factory] of Object.entries(options.plugins ?? {})) registry.register(name, factory);
    const build = {
      ...(options.enable ? { enable: options.enable } : {}),
      ...(options.disable ? { disable: options.disable } : {}),
      ...(options.config ? { config: options.config } : {}),
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
    };
    this.enabled = registry.enabledPluginNames(build);
    this.chain = registry.buildChain(build);
  }

  /** The kinds and hooks to install on the server (GenericAPIServerOptions.providers). */
  provider(): {
    name: string;
    resources: readonly ResourceDefinition[];
    postStartHooks: { name: string; run(server: AdmissionControlHost): Promise<void> }[];
    preShutdownHooks: { name: string; run(): void }[];
  } {
    return {
      name: 'admission',
      resources: [...admissionRegistrationResources, ResourceQuota as unknown as ResourceDefinition],
      postStartHooks: [{ name: 'admission/start', run: (server) => this.start(server) }],
      preShutdownHooks: [{ name: 'admission/stop', run: () => this.stop() }],
    };
  }

  /**
   * Binds admission to `host`'s stores: lists and watches the configurations, policies, bindings and namespaces and
   * starts the quota controller; resolves when they were listed. A request admitted before waits for it (kube's
   * WaitForReady, then "not yet ready").
   */
  async start(host: AdmissionControlHost): Promise<void> {
    this.#host = host;
    const cache = <T extends KubeObject>(resource: string): ObjectCache<T> => {
      const objects = hostObjectCache<T>(host, resource, {
        signal: this.#abort.signal,
        clock: this.#options.clock,
        onError: (err) => this.#onError(err, `list and watch ${resource}`),
      });
      if (!objects) throw new Error(`admission needs ${resource} served by this server (install AdmissionControl's provider)`);
      return objects;
    };
    const c = this.#caches;
    c.namespaces = cache(RESOURCES.namespaces);
    if (this.enabled.includes(MUTATING_WEBHOOK_PLUGIN_NAME)) c.mutating = cache(RESOURCES.mutating);
    if (this.enabled.includes(VALIDATING_WEBHOOK_PLUGIN_NAME)) c.validating = cache(RESOURCES.validating);
    if (this.enabled.includes(VALIDATING_ADMISSION_POLICY_PLUGIN_NAME)) {
      c.policies = cache(RESOURCES.policies);
      c.bindings = cache(RESOURCES.bindings);
      // A policy's params are listed and watched as soon as a policy names their kind, not on the first request.
      const params = this.#params;
      params?.start(host);
      const policies = c.policies;
      const prepare = () => {
        for (const p of policies.list())
          if (p.spec?.paramKind?.apiVersion && p.spec.paramKind.kind)
            params?.prepare(p.spec.paramKind as { apiVersion: string; kind: string });
      };
      policies.onChange(prepare);
      if (this.#options.kindSchemas) this.#startTypeChecking(host, policies, this.#options.kindSchemas(host));
    }
    await Promise.all([...Object.values(c).map((x) => x?.whenSynced()), this.#quota?.start(host)]);
    this.#ready();
  }

  stop(): void {
    this.#abort.abort();
    this.#params?.stop();
    this.#quota?.stop();
  }

  /** The quota plugin's controller (after start), e.g. to wait in a test until status.used is current. */
  get quotaController(): ResourceQuotaAdmission['controller'] {
    return this.#quota?.controller;
  }

  /** kube's ValidatingAdmissionPolicy status controller: each new generation of a policy type-checked into its status. */
  #startTypeChecking(
    host: AdmissionControlHost,
    policies: ObjectCache<ValidatingAdmissionPolicy & KubeObject>,
    schemas: KindSchemas,
  ): void {
    const store = host.store(RESOURCES.policies) as PolicyStatusStore;
    const controller = new PolicyTypeCheckingController({
      policies: () => policies.list(),
      schemas,
      writer: {
        async writeStatus(policy, status) {
          // At the policy's resourceVersion: a policy changed since is written again on its own change.
          await store.update(
            {},
            policy.metadata.name ?? '',
            { ...policy, status },
            { subresource: 'status', fieldManager: TYPE_CHECKING_CONTROLLER_NAME },
          );
        },
      },
    });
    let running = Promise.resolve();
    const sync = () => {
      running = running.then(() => controller.sync()).catch((err) => this.#onError(err, 'type-check validatingadmissionpolicies'));
    };
    policies.onChange(sync);
    void policies.whenSynced().then(sync, () => {});
  }

  #register(registry: AdmissionPluginRegistry): void {
    const o = this.#options;
    const clock = o.clock ?? realClock;
    const authorizer = o.authorizer ? lazyAuthorizer(o.authorizer) : undefined;
    const namespaces: NamespaceLookup = { getNamespace: (name) => this.#caches.namespaces?.get('', name) };
    const whenReady = () => this.#whenReady;
    const webhookOptions = {
      namespaces,
      clock,
      whenReady,
      ...(o.services ? { services: o.services } : {}),
      ...(o.serviceResolver ? { serviceResolver: o.serviceResolver } : {}),
      ...(o.webhookAuthentication ? { authentication: o.webhookAuthentication } : {}),
      ...(authorizer ? { authorizer } : {}),
      ...(o.metrics ? { metrics: o.metrics } : {}),
    };
    // kube's NamespaceLifecycle: the Stores of a GenericAPIServer run it for every namespaced kind whatever the chain
    // holds, so the chain's entry only carries the name (enabling it changes nothing; disabling it is refused above).
    registry.register(NAMESPACE_LIFECYCLE, () => ({ name: NAMESPACE_LIFECYCLE, handles: () => false }) satisfies AdmissionPlugin);
    registry.register(ALWAYS_ADMIT, () => alwaysAdmit());
    registry.register('AlwaysDeny', () => denyAll('AlwaysDeny'));
    registry.register(OWNER_REFERENCES_PERMISSION_ENFORCEMENT, () => {
      if (!o.authorizer)
        throw new Error(`${OWNER_REFERENCES_PERMISSION_ENFORCEMENT} needs the server's authorizer (AdmissionControlOptions.authorizer)`);
      return ownerReferencesPermissionEnforcement({
        authorizer: o.authorizer,
        restMapper: restMapperFor(() => this.#host?.definitions() ?? []),
      });
    });
    // A plugin's WebhookAdmissionConfiguration (AdmissionConfiguration) names the kubeconfig of webhook credentials.
    const authentication = (config: unknown) => {
      const fromConfig = webhookAuthenticationFromConfig(config);
      return fromConfig ? { authentication: fromConfig } : {};
    };
    registry.register(
      MUTATING_WEBHOOK_PLUGIN_NAME,
      (config) =>
        new MutatingWebhooks({ ...webhookOptions, ...authentication(config), configurations: () => this.#caches.mutating?.list() ?? [] }),
    );
    registry.register(
      VALIDATING_WEBHOOK_PLUGIN_NAME,
      (config) =>
        new ValidatingWebhooks({
          ...webhookOptions,
          ...authentication(config),
          configurations: () => this.#caches.validating?.list() ?? [],
        }),
    );
    registry.register(VALIDATING_ADMISSION_POLICY_PLUGIN_NAME, () => {
      this.#params = hostParamSource({
        signal: this.#abort.signal,
        clock,
        onError: (err, what) => this.#onError(err, what),
      });
      return new ValidatingAdmissionPolicyPlugin({
        policies: () => this.#caches.policies?.list() ?? [],
        bindings: () => this.#caches.bindings?.list() ?? [],
        params: this.#params,
        namespaces,
        ...(authorizer ? { authorizer } : {}),
        ...(o.metrics ? { metrics: o.metrics } : {}),
      });
    });
    registry.register(RESOURCE_QUOTA_PLUGIN, (config) => {
      // Its ResourceQuotaConfiguration (AdmissionConfiguration): resources that need a quota to be created at all.
      const limited = parseResourceQuotaConfiguration(config)?.limitedResources;
      this.#quota = new ResourceQuotaAdmission({
        clock,
        ...(limited?.length ? { limitedResources: limited } : {}),
        ...(o.quotaResyncPeriodMs !== undefined ? { resyncPeriodMs: o.quotaResyncPeriodMs } : {}),
        ...(o.onError ? { onError: o.onError } : {}),
      });
      return this.#quota.plugin;
    });
  }

  #onError(err: unknown, what: string): void {
    if (this.#options.onError) this.#options.onError(err, what);
    else console.error(`admission: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** An Authorizer that asks the one `get` returns at each call (the server's is built after its admission). */
function lazyAuthorizer(get: () => Authorizer): Authorizer {
  return { authorize: (attrs) => get().authorize(attrs) };
}

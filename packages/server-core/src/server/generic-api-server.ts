import { type Clock, type GroupResource, realClock } from '@kapi/apimachinery';
import type { CABundle } from '@kapi/authn';
import type { Authorizer } from '@kapi/authz';
import {
  GarbageCollector,
  Namespace,
  NamespaceController,
  NamespaceLifecycle,
  NamespaceRegistry,
  type ResourceDefinition,
  type ResourceVersion,
  type ServiceAccount,
  ServiceAccountsController,
  Store,
  StoreKeys,
  warningEventRecorder,
} from '@kapi/registry';
import type { Storage } from '@kapi/storage';
import { Cacher, type CacherStats } from '@kapi/watchcache';
import { recordAuditObjects } from '../audit/context.ts';
import type { DiscoverySource, SubresourceInfo } from '../discovery/documents.ts';
import { discoveryHandler } from '../discovery/handler.ts';
import {
  type Admission,
  handleResource,
  type ResourceDeleter,
  type ResourceEndpoint,
  type ResourceHandlerOptions,
} from '../endpoints/resource-handler.ts';
import { pathNotFound } from '../endpoints/response.ts';
import { type SubresourceStorage, subresourceVerbs } from '../endpoints/subresource-storage.ts';
import { finalizeSubresource } from '../endpoints/subresources/finalize.ts';
import { proxySubresource } from '../endpoints/subresources/proxy.ts';
import { scaleSubresource } from '../endpoints/subresources/scale.ts';
import { statusSubresource } from '../endpoints/subresources/status.ts';
import { handleVirtual } from '../endpoints/virtual-handler.ts';
import { type AuditOptions, withAudit } from '../filters/audit.ts';
import { type AuthenticationOptions, withAuthentication } from '../filters/authentication.ts';
import { withAuthorization } from '../filters/authorization.ts';
import { withRequestBodyLimit } from '../filters/body-limit.ts';
import { compose } from '../filters/compose.ts';
import type { Filter, Handler, RequestContext } from '../filters/context.ts';
import { type CorsOptions, withCors } from '../filters/cors.ts';
import { withHsts } from '../filters/hsts.ts';
import { withImpersonation } from '../filters/impersonation.ts';
import { withMaxInFlightLimit } from '../filters/max-in-flight.ts';
import { withPanicRecovery } from '../filters/panic-recovery.ts';
import { withRequestInfo } from '../filters/request-info.ts';
import { withTimeout } from '../filters/timeout.ts';
import { addWarning, withWarnings } from '../filters/warning.ts';
import { type HealthCheck, healthHandler, namedHealthCheck } from '../health/healthz.ts';
import type { LeaderElectedControllers, SingletonController } from '../leader-election/leader-elected-controllers.ts';
import { APIServerMetrics } from '../metrics/apiserver-metrics.ts';
import type { AuthorizerLabels } from '../metrics/authorization-metrics.ts';
import { metricsHandler } from '../metrics/metrics-handler.ts';
import { withMetrics } from '../metrics/with-metrics.ts';
import { openAPIHandler } from '../openapi/handler.ts';
import { authReviewResources } from '../reviews/auth-reviews.ts';
import { issuerDiscoveryHandler } from '../serviceaccount/issuer-discovery.ts';
import { type ServiceAccountTokenOptions, tokenSubresource } from '../serviceaccount/token-request.ts';
import { type VersionOptions, versionHandler } from '../version/version.ts';
import { type APIProvider, qualifiedResource, type WriteCheck } from './api-provider.ts';
import { type CertificateAuthenticationOptions, certificateAuthentication, clientCAsOf } from './certificate-authentication.ts';
import { deprecationWarning } from './deprecation-warning.ts';
import { InstalledResource } from './installed-resource.ts';
import type { VirtualResource } from './virtual-resource.ts';

export interface GenericAPIServerOptions extends CertificateAuthenticationOptions {
  /** The backend every resource is stored in. */
  storage: Storage;
  /**
   * The kinds to serve (more can come and go at run time: addResource, removeResource). Namespace (if listed) brings
   * namespace lifecycle, its controller and default namespaces, which also cover the namespaced kinds of the servers
   * delegating to this one.
   */
  resources: readonly ResourceDefinition[];
  /**
   * Packages installed into the server (kube's RESTStorageProvider and post-start hooks): their kinds are served like
   * `resources`, their write checks run on every create, update and patch of those kinds (with or without
   * `admission`), their post-start hooks run in start() after this server's own and their pre-shutdown hooks in
   * shutdown().
   */
  providers?: readonly APIProvider[];
  /** Serve reads and watches from a watch cache (Cacher) per resource. Default true. */
  watchCache?: boolean;
  /** Close `storage` at the end of shutdown. Default true. */
  closeStorage?: boolean;
  /** kube-apiserver's request, watcher and storage metrics, served at /metrics. Default: a fresh set. */
  metrics?: APIServerMetrics;
  /** Mutating and validating admission of every write. */
  admission?: Admission;
  /** Who is calling. Without it every request is system:anonymous (and nothing else is checked). */
  authentication?: AuthenticationOptions;
  /** What a caller may do (also decides impersonation). Without it everything is allowed. */
  authorizer?: Authorizer;
  /**
   * How apiserver_authorization_decisions_total labels `authorizer`'s decisions on requests, as kube labels a mode of
   * --authorization-mode: `authorizerLabelsForMode('RBAC')` is {type: 'RBAC', name: 'rbac'}. Unset: not counted
   * there (the modes of a union are counted each by instrumentedAuthorizer).
   */
  authorizerLabels?: AuthorizerLabels;
  /** An audit log of every request. */
  audit?: AuditOptions;
  /** Extra filters run just before routing, after authorization and before the request timeout. */
  filters?: readonly Filter[];
  /** Replace the default chain entirely: given the defaults, return the chain to use (outermost first). */
  buildChain?: (defaults: Filter[]) => Filter[];
  /** Where paths this server does not serve go (kube's delegation: extensions → core → aggregator). */
  delegate?: GenericAPIServer;
  clock?: Clock;
  /** kube's --max-requests-inflight / --max-mutating-requests-inflight. Defaults 400 / 200. */
  maxRequestsInFlight?: number;
  maxMutatingRequestsInFlight?: number;
  /** kube's --request-timeout for non-long-running requests. Default 60. */
  requestTimeoutSeconds?: number;
  /** kube's --min-request-timeout: a watch without timeoutSeconds lasts [min, 2·min) seconds. Default 1800. */
  minRequestTimeoutSeconds?: number;
  /** Default 3 MiB. */
  maxRequestBodyBytes?: number;
  cors?: CorsOptions;
  /** Strict-Transport-Security directives, e.g. ['max-age=31536000', 'includeSubDomains']. */
  hsts?: readonly string[];
  version?: VersionOptions;
  /** Extra named checks for /healthz, /livez and /readyz. */
  healthChecks?: readonly HealthCheck[];
  /** Namespaces created at start when Namespace is served. Default default, kube-system, kube-public, kube-node-lease. */
  defaultNamespaces?: readonly string[];
  /** Resources served by code rather than a Store (routed and discovered like the others); see VirtualResource. */
  virtualResources?: readonly VirtualResource[];
  /**
   * Serve SelfSubjectReview, SelfSubjectAccessReview and SelfSubjectRulesReview (kubectl auth whoami / can-i), answered
   * with `authorizer`, as kube-apiserver always does. Default true. A server's own shadow its delegate's.
   */
  authReviews?: boolean;
  /**
   * Service-account tokens (kube's --service-account-issuer and signing key): the TokenRequest subresource
   * `serviceaccounts/<name>/token` when ServiceAccount is served, and /.well-known/openid-configuration and
   * /openid/v1/jwks. Accepting the tokens is `authentication`'s part (a ServiceAccountAuthenticator over
   * `storeObjectGetter(() => server.store('serviceaccounts'))`).
   */
  serviceAccountTokens?: ServiceAccountTokenOptions;
  /**
   * Run kube's garbage collector in process (post-start hook `start-garbage-collector`): ownerReferences and the
   * propagationPolicy of deletes (Background, Foreground, Orphan) over every kind this server and its delegates serve,
   * kinds added later included. Default false. One server of a chain runs it (the first sees every kind).
   */
  garbageCollector?: boolean;
  /**
   * Several processes serve one control plane (one etcd or Redis): the controllers kube runs in
   * kube-controller-manager (the namespace controller, the serviceaccounts controller, the garbage collector,
   * admission's ResourceQuota controller) run only while this process holds the Lease `leaderElection` races for
   * (kube-system/kube-controller-manager by default). Give every server of a chain the same object. Default: none,
   * the controllers start with the server. What kube-apiserver runs on every replica still runs on every process.
   */
  leaderElection?: LeaderElectedControllers;
  /** Subresources of the kinds in `resources` beside those their definitions declare, as addResource's `subresources`. */
  subresources?: ReadonlyMap<ResourceDefinition, ReadonlyMap<string, (store: Store) => SubresourceStorage>>;
}

export type LifecycleHook = (server: GenericAPIServer) => Promise<void> | void;

/** What addResource may add beside the kind itself. */
export interface AddResourceOptions {
  /** Checks run on every create, update and patch of the kind, as a provider's write checks are; each names the kind. */
  writeChecks?: readonly WriteCheck[];
  /**
   * Wraps the server's backend under the kind's watch cache and Store: work every object read from storage needs is
   * done there, once per change for the cache (a custom resource's schema defaults, which kube's storage decoder
   * applies on read).
   */
  storage?: (storage: Storage) => Storage;
  /**
   * Subresources beside those the definition declares (status, scale): `name` → a function of the kind's Store giving
   * the storage served at `<object path>/<name>` by the verbs it implements, and listed in discovery. A name the
   * definition declares is served by the storage given here instead.
   */
  subresources?: ReadonlyMap<string, (store: Store) => SubresourceStorage>;
}

/**
 * A change of the kinds a server serves, told after it took effect (routes, discovery and OpenAPI follow it). A server
 * passes on its delegate's changes, so a listener on the first server of a chain hears of every server's.
 */
export interface ResourcesChange {
  readonly type: 'Added' | 'Removed';
  readonly definition: ResourceDefinition;
}

export type ResourcesChangeListener = (change: ResourcesChange) => void;

/** What this server and its delegates serve, derived from their installed kinds; rebuilt after a change. */
interface ServedSet {
  readonly definitions: readonly ResourceDefinition[];
  readonly virtual: readonly VirtualResource[];
  readonly subresources: readonly SubresourceInfo[];
  readonly discovery: DiscoverySource;
}

/** The namespace machinery a namespaced kind is tied to: its creates checked, its objects deleted with the namespace. */
interface Namespacing {
  readonly lifecycle: NamespaceLifecycle;
  readonly controller: NamespaceController;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const virtualKey = (v: VirtualResource): string => `${v.group}/${v.version}/${v.resource}`;

/** The routing keys of a definition: `group/version/plural` of each served version. */
const routeKeys = (def: ResourceDefinition): string[] =>
  def.versions.filter((v) => v.served).map((v) => `${def.group}/${v.name}/${def.plural}`);

const isNamespaceKind = (def: ResourceDefinition): boolean => def === Namespace || (def.group === '' && def.kind === 'Namespace');

const deprecationWarnings = new WeakMap<ResourceVersion, string>();

/** A deprecated version's Warning, worked out once per version. */
function deprecationWarningOf(def: ResourceDefinition, version: ResourceVersion): string {
  let text = deprecationWarnings.get(version);
  if (text === undefined) {
    text = deprecationWarning(def, version);
    deprecationWarnings.set(version, text);
  }
  return text;
}

/** A check that guards another kind would leave that kind unguarded without a word. */
function checkWriteChecks(id: string, options: AddResourceOptions): void {
  for (const check of options.writeChecks ?? [])
    if (check.resource !== id) throw new Error(`write check of resource ${check.resource} given to addResource of ${id}`);
}

/** The subtree a kind's Store keeps its objects in (`/registry/<group or core>/<plural>`): what its watch cache holds. */
function cachePrefix(def: ResourceDefinition): string {
  return new StoreKeys(def).prefix(undefined).replace(/\/+$/, '');
}

/**
 * A Kubernetes-style API server assembled from resource definitions: one Store (behind a watch cache) per kind,
 * the handler chain of DESIGN.md, discovery, health, version, and the REST endpoints of every kind. Start it with
 * `start()` (waits for the caches, creates default namespaces, runs post-start hooks), serve `handler` over HTTP,
 * and end it with `shutdown()` (pre-shutdown hooks, controllers and caches stopped, storage closed). Kinds can be
 * added and removed while it runs (`addResource`, `removeResource`, `onResourcesChanged`).
 */
export class GenericAPIServer {
  readonly #options: GenericAPIServerOptions;
  readonly #clock: Clock;
  /** Routes: `group/version/plural` → the kind's endpoint. Read per request, changed by addResource/removeResource. */
  readonly #endpoints = new Map<string, InstalledResource>();
  /** The kinds served through a Store, in registration order. */
  readonly #installed = new Map<ResourceDefinition, InstalledResource>();
  /** Kinds being added (`plural.group`), whose watch cache is not ready yet, with that cache. */
  readonly #pending = new Map<string, Cacher | undefined>();
  /** Removed kinds whose cache waits for their last requests to settle (closed at shutdown if still open). */
  readonly #retiring = new Set<InstalledResource>();
  readonly #writeChecks = new Map<ResourceDefinition, readonly WriteCheck[]>();
  readonly #listeners = new Set<ResourcesChangeListener>();
  readonly metrics: APIServerMetrics;
  readonly #postStart = new Map<string, LifecycleHook>();
  readonly #preShutdown = new Map<string, LifecycleHook>();
  readonly #namespaces: NamespaceRegistry | undefined;
  readonly #ownNamespacing: Namespacing | undefined;
  readonly #serviceAccountsController: ServiceAccountsController | undefined;
  #garbageCollector: GarbageCollector | undefined;
  #started = false;
  #ready = false;
  #shuttingDown = false;
  #handler: Handler | undefined;
  #router: Handler | undefined;
  readonly #handlerOptions: ResourceHandlerOptions;
  readonly #postStartDone = new Set<string>();
  readonly #virtual = new Map<string, VirtualResource>();
  /**
   * What this server and its delegates serve, derived on first use after a change (copy-on-write: a change makes a new
   * one, so discovery and OpenAPI, which cache per source object, rebuild their documents once per change).
   */
  #served: ServedSet | undefined;

  constructor(options: GenericAPIServerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.metrics = options.metrics ?? new APIServerMetrics();
    this.metrics.setStorageObjectsSource(() => this.#storageObjectCounts());
    const providers = options.providers ?? [];
    const resources = [...options.resources, ...providers.flatMap((p) => p.resources ?? [])];
    const nsDef = resources.find(isNamespaceKind);
    if (nsDef) {
      const clock = this.#clock;
      const cacher = this.#newCacher(Namespace);
      let lifecycle: NamespaceLifecycle | undefined;
      this.#namespaces = new NamespaceRegistry({
        storage: cacher ?? options.storage,
        clock,
        beforeDelete: (name) => lifecycle?.namespaceDeleted(name),
      });
      lifecycle = new NamespaceLifecycle(this.#namespaces.store, { clock });
      const controller = new NamespaceController({ namespaces: this.#namespaces, clock });
      this.#ownNamespacing = { lifecycle, controller };
      const namespaces = this.#namespaces;
      this.#install(
        new InstalledResource(
          () => ({
            definition: Namespace,
            store: namespaces.store,
            deleter: namespaces,
            subresources: new Map([['finalize', finalizeSubresource(namespaces)], ...this.#subresourcesOf(namespaces.store)]),
          }),
          cacher,
        ),
      );
      this.#singleton('namespace-controller', 'start-namespace-controller', controller);
    }
    for (const def of resources) {
      if (def === nsDef) continue;
      const cacher = this.#newCacher(def);
      const store = this.#newStore(def, cacher);
      // kube-controller-manager's serviceaccounts controller: `default` in every namespace.
      if (this.#namespaces && def.group === '' && def.kind === 'ServiceAccount')
        this.#serviceAccountsController = new ServiceAccountsController({
          namespaces: this.#namespaces.store,
          serviceAccounts: store as Store<ServiceAccount>,
          clock: this.#clock,
        });
      if (def.namespaced) this.#namespacing()?.controller.register(store);
      this.#install(new InstalledResource((removed) => this.#endpointOf(store, removed, options.subresources?.get(def)), cacher));
    }
    if (this.#serviceAccountsController) {
      this.#singleton('serviceaccount-controller', 'start-service-account-controller', this.#serviceAccountsController);
    }
    if (options.garbageCollector) {
      const newCollector = () =>
        new GarbageCollector({
          resources: this,
          clock: this.#clock,
          recordWarning: warningEventRecorder(() => this.store('events'), this.#clock, 'garbage-collector-controller'),
        });
      // A new leadership term starts from a fresh graph: one kept from an earlier term would hold what changed meanwhile.
      this.#singleton('garbage-collector', 'start-garbage-collector', {
        start: () => {
          if (this.#garbageCollector?.running) return;
          this.#garbageCollector = newCollector();
          this.#garbageCollector.start();
        },
        stop: () => this.#garbageCollector?.stop(),
      });
    }
    for (const provider of providers) {
      for (const hook of provider.postStartHooks ?? []) this.addPostStartHook(hook.name, (server) => hook.run(server));
      for (const hook of provider.preShutdownHooks ?? []) this.addPreShutdownHook(hook.name, () => hook.run());
    }
    for (const [def, checks] of this.#writeChecksOf(providers)) this.#writeChecks.set(def, checks);
    const virtual = [
      ...(options.authReviews !== false
        ? authReviewResources({
            ...(options.authorizer ? { authorizer: options.authorizer } : {}),
            ...(options.authentication ? { authenticator: options.authentication.authenticator } : {}),
            ...(options.authentication?.apiAudiences ? { apiAudiences: options.authentication.apiAudiences } : {}),
            clock: this.#clock,
          })
        : []),
      ...(options.virtualResources ?? []),
    ];
    for (const v of virtual) {
      const key = virtualKey(v);
      if (this.#endpoints.has(key) || this.#virtual.has(key))
        throw new Error(`resource ${v.resource} in ${v.group || 'core'}/${v.version} is installed twice`);
      this.#virtual.set(key, v);
    }

    // A delegate's change is this server's too: what it lists and passes on.
    options.delegate?.onResourcesChanged((change) => this.#changed(change));
    this.#handlerOptions = this.#buildHandlerOptions();
  }

  /**
   * A kube-controller-manager controller: started by the post-start hook `hook` on a lone server; with leader election,
   * run while this process holds the Lease instead.
   */
  #singleton(name: string, hook: string, controller: SingletonController): void {
    if (this.#options.leaderElection) this.#options.leaderElection.add(name, controller);
    else this.addPostStartHook(hook, () => controller.start());
  }

  /** The leader election of this server or its delegates (their singleton controllers run while it leads). */
  get leaderElection(): LeaderElectedControllers | undefined {
    return this.#options.leaderElection ?? this.#options.delegate?.leaderElection;
  }

  /** A watch cache for a kind's subtree, unless watch caches are off. */
  #newCacher(def: ResourceDefinition, storage: Storage = this.#options.storage): Cacher | undefined {
    if (this.#options.watchCache === false) return undefined;
    return new Cacher({ storage, resourcePrefix: cachePrefix(def), clock: this.#clock });
  }

  /**
   * The namespace lifecycle and controller of this server, else of the nearest delegate serving Namespace: as in kube's
   * chain, where NamespaceLifecycle admits every server's writes and the namespace controller deletes every kind's
   * objects, custom resources included.
   */
  #namespacing(): Namespacing | undefined {
    const delegate = this.#options.delegate;
    return this.#ownNamespacing ?? (delegate ? delegate.#namespacing() : undefined);
  }

  #newStore(def: ResourceDefinition, cacher: Cacher | undefined, storage: Storage = this.#options.storage): Store {
    const lifecycle = def.namespaced ? this.#namespacing()?.lifecycle : undefined;
    return new Store(def, {
      storage: cacher ?? storage,
      clock: this.#clock,
      ...(lifecycle ? { beforeCreate: lifecycle.beforeCreate } : {}),
    });
  }

  /**
   * A kind's endpoint: its Store and its subresources' storages: those its definition declares, serviceaccounts' token
   * when tokens are issued, then `extra` (addResource's).
   */
  #endpointOf(store: Store, removed: AbortSignal, extra?: ReadonlyMap<string, (store: Store) => SubresourceStorage>): ResourceEndpoint {
    const subresources = new Map(this.#subresourcesOf(store));
    for (const [name, storage] of extra ?? []) subresources.set(name, storage(store));
    return { definition: store.definition, store, removed, subresources };
  }

  /** The subresource storages of a kind's Store as its definition declares them (kube's `resource/subresource` entries). */
  #subresourcesOf(store: Store): Map<string, SubresourceStorage> {
    const def = store.definition;
    const options = this.#options;
    const out = new Map<string, SubresourceStorage>();
    if (def.subresources.status) out.set('status', statusSubresource(store));
    if (def.subresources.scale) out.set('scale', scaleSubresource(store));
    if (def.subresources.proxy) out.set('proxy', proxySubresource(store, def.subresources.proxy));
    const sat = options.serviceAccountTokens;
    if (sat && def.group === '' && def.kind === 'ServiceAccount')
      out.set(
        'token',
        tokenSubresource({
          // A TokenRequest naming no audience gets the server's API audiences (kube's --api-audiences).
          ...(options.authentication?.apiAudiences?.length ? { apiAudiences: options.authentication.apiAudiences } : {}),
          ...sat,
          serviceAccounts: store,
          storeOf: (r) => this.store(r),
          clock: this.#clock,
        }),
      );
    return out;
  }

  /** The providers' write checks by the definition they guard; a check of a kind this server does not serve is an error. */
  #writeChecksOf(providers: readonly APIProvider[]): Map<ResourceDefinition, WriteCheck[]> {
    const out = new Map<ResourceDefinition, WriteCheck[]>();
    for (const provider of providers)
      for (const check of provider.writeChecks ?? []) {
        const def = [...this.#installed.keys()].find((d) => qualifiedResource(d) === check.resource);
        // A check that guards nothing would leave its kind unguarded without a word.
        if (!def) throw new Error(`write check of ${provider.name}: resource ${check.resource} is not served by this server`);
        out.set(def, [...(out.get(def) ?? []), check]);
      }
    return out;
  }

  /**
   * Every subresource of this server's kinds and its delegates' (status, scale, namespaces/finalize,
   * serviceaccounts/token, addResource's), with the verbs its storage implements: what discovery lists.
   */
  subresources(): readonly SubresourceInfo[] {
    return this.#servedSet().subresources;
  }

  /** The same as subresources() (RBAC's host interface reads it by this name). */
  extraSubresources(): readonly SubresourceInfo[] {
    return this.subresources();
  }

  /** The virtual resources of this server and its delegates. */
  virtualResources(): readonly VirtualResource[] {
    return this.#servedSet().virtual;
  }

  #servedSet(): ServedSet {
    this.#served ??= this.#deriveServedSet();
    return this.#served;
  }

  #deriveServedSet(): ServedSet {
    const delegate = this.#options.delegate;
    const own = [...this.#installed.keys()];
    const ownKinds = new Set(own.map(qualifiedResource));
    // This server's kinds shadow its delegate's of the same group and plural (it routes them first).
    const definitions = [...own, ...(delegate?.definitions() ?? []).filter((d) => !ownKinds.has(qualifiedResource(d)))];
    // Its own virtual resources shadow its delegate's of the same group/version/resource likewise.
    const virtual = [...this.#virtual.values(), ...(delegate?.virtualResources() ?? []).filter((v) => !this.#virtual.has(virtualKey(v)))];
    // The subresources of this server's kinds, from their storages, and its delegate's of the kinds not shadowed.
    const subresources = [
      ...[...this.#installed.values()].flatMap(({ endpoint: ep }) =>
        [...ep.subresources].map(([subresource, storage]) => ({
          group: ep.definition.group,
          resource: ep.definition.plural,
          subresource,
          ...(storage.kind ? { responseKind: { ...storage.kind } } : {}),
          verbs: subresourceVerbs(storage),
        })),
      ),
      ...(delegate?.subresources() ?? []).filter((x) => !ownKinds.has(qualifiedResource({ group: x.group, plural: x.resource }))),
    ];
    const discovery = { definitions, virtual, subresources };
    return { definitions, virtual, subresources, discovery };
  }

  /**
   * Calls `listener` after each kind this server or a delegate adds or removes, once the change took effect; returns
   * the function that unsubscribes it. As with EventTarget, a listener's exception does not stop the others or the
   * change; it is rethrown on its own (an uncaught exception).
   */
  onResourcesChanged(listener: ResourcesChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(change: ResourcesChange): void {
    this.#served = undefined;
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  /**
   * Serves a kind from now on, on a running server or one not started yet: a Store behind its own watch cache (when
   * watch caches are on; the kind is routed once the cache has synced, so its first read is served), routes for each
   * served version, discovery (legacy and aggregated) and OpenAPI documents with new ETags, namespace lifecycle and the
   * namespace controller for a namespaced kind, and the servers delegating to this one list and route it too. A kind
   * whose group and plural this server or a delegate already serves (or a virtual resource's group/version/resource)
   * is an error, as is adding Namespace (list it in `resources`). Rejects if the kind is removed, or the server shut
   * down, before its cache synced.
   */
  async addResource(definition: ResourceDefinition, options: AddResourceOptions = {}): Promise<void> {
    const id = qualifiedResource(definition);
    const where = (version: string): string => `${definition.plural} in ${definition.group || 'core'}/${version}`;
    if (this.#shuttingDown) throw new Error(`cannot add resource ${id}: the server is shutting down`);
    if (isNamespaceKind(definition)) throw new Error('Namespace cannot be added at run time: list it in `resources`');
    if (this.#pending.has(id) || this.#servedSet().definitions.some((d) => qualifiedResource(d) === id))
      throw new Error(`resource ${where(definition.storageVersion.name)} is already served`);
    const virtual = new Set(this.#servedSet().virtual.map(virtualKey));
    for (const key of routeKeys(definition))
      if (virtual.has(key)) throw new Error(`resource ${where(key.split('/')[1] ?? '')} is already served`);

    checkWriteChecks(id, options);
    const storage = options.storage ? options.storage(this.#options.storage) : this.#options.storage;
    const cacher = this.#newCacher(definition, storage);
    const store = this.#newStore(definition, cacher, storage);
    if (cacher) {
      this.#pending.set(id, cacher);
      try {
        await cacher.ready();
      } catch {
        throw new Error(`resource ${id} was removed (or the server shut down) before its watch cache synced`);
      } finally {
        if (this.#pending.get(id) === cacher) this.#pending.delete(id);
      }
    }
    this.#install(new InstalledResource((removed) => this.#endpointOf(store, removed, options.subresources), cacher));
    if (options.writeChecks?.length) this.#writeChecks.set(definition, options.writeChecks);
    if (definition.namespaced) this.#namespacing()?.controller.register(store);
    this.#changed({ type: 'Added', definition });
  }

  /**
   * Serves `definition` in place of the kind of the same group and plural that this server serves, as kube's CRD
   * handler swaps a CRD's storage when its spec changes: a new Store behind a new watch cache, routed once that cache
   * synced and in one step (no request in between finds neither); the old kind's watches end cleanly and its cache stops
   * once its requests settled; discovery and OpenAPI follow (listeners hear Removed, then Added). Adds the kind when
   * this server does not serve it. Rejects if the old kind is removed, or the server shuts down, before the new cache synced.
   */
  async replaceResource(definition: ResourceDefinition, options: AddResourceOptions = {}): Promise<void> {
    const id = qualifiedResource(definition);
    const old = [...this.#installed.keys()].find((d) => qualifiedResource(d) === id);
    if (!old) return this.addResource(definition, options);
    if (this.#shuttingDown) throw new Error(`cannot replace resource ${id}: the server is shutting down`);
    if (isNamespaceKind(definition)) throw new Error('Namespace cannot be replaced at run time');
    checkWriteChecks(id, options);
    const previous = this.#installed.get(old) as InstalledResource;
    const storage = options.storage ? options.storage(this.#options.storage) : this.#options.storage;
    const cacher = this.#newCacher(definition, storage);
    const store = this.#newStore(definition, cacher, storage);
    if (cacher) {
      const gone = () => this.#shuttingDown || this.#installed.get(old) !== previous;
      try {
        await cacher.ready();
      } catch {
        throw new Error(`resource ${id} could not be replaced: its new watch cache stopped before it synced`);
      }
      if (gone()) {
        cacher.stop();
        throw new Error(`resource ${id} was removed (or the server shut down) before its new watch cache synced`);
      }
    }
    for (const key of routeKeys(old)) if (this.#endpoints.get(key) === previous) this.#endpoints.delete(key);
    this.#installed.delete(old);
    this.#writeChecks.delete(old);
    if (old.namespaced) this.#namespacing()?.controller.unregister(previous.endpoint.store);
    this.#install(new InstalledResource((removed) => this.#endpointOf(store, removed, options.subresources), cacher));
    if (options.writeChecks?.length) this.#writeChecks.set(definition, options.writeChecks);
    if (definition.namespaced) this.#namespacing()?.controller.register(store);
    this.#retiring.add(previous);
    void previous.remove().then(() => this.#retiring.delete(previous));
    this.#changed({ type: 'Removed', definition: old });
    this.#changed({ type: 'Added', definition });
  }

  /**
   * Stops serving a kind (a definition, or its group and plural): its paths answer 404 as an unknown resource's do, it
   * leaves discovery and OpenAPI, its open watches end cleanly (the stream closes, as on shutdown), its watch cache
   * stops, and a namespace deleted later leaves its objects alone. Its objects stay in storage. A kind still being
   * added is cancelled (its addResource rejects). False when this server does not serve the kind (a delegate's is its
   * own to remove); Namespace cannot be removed.
   */
  async removeResource(resource: ResourceDefinition | GroupResource): Promise<boolean> {
    const id = 'kind' in resource ? qualifiedResource(resource) : qualifiedResource({ group: resource.group, plural: resource.resource });
    if (this.#pending.has(id)) {
      const cacher = this.#pending.get(id);
      this.#pending.delete(id);
      cacher?.stop();
      return true;
    }
    const definition = [...this.#installed.keys()].find((d) => qualifiedResource(d) === id);
    if (!definition) return false;
    if (isNamespaceKind(definition)) throw new Error('Namespace cannot be removed: namespace lifecycle depends on it');
    const installed = this.#installed.get(definition) as InstalledResource;
    for (const key of routeKeys(definition)) if (this.#endpoints.get(key) === installed) this.#endpoints.delete(key);
    this.#installed.delete(definition);
    this.#writeChecks.delete(definition);
    if (definition.namespaced) this.#namespacing()?.controller.unregister(installed.endpoint.store);
    // Its watches end now; its cache stops once the requests routed to it before settled (in the background).
    this.#retiring.add(installed);
    void installed.remove().then(() => this.#retiring.delete(installed));
    this.#changed({ type: 'Removed', definition });
    return true;
  }

  /**
   * The counters of every resource's watch cache, this server's and its delegates' (`plural` or `plural.group`; empty without watch caches): e.g.
   * `consistentReadFallbacks`, the consistent reads that waited out the freshness timeout before reading the backend.
   */
  watchCacheStats(): Map<string, CacherStats> {
    // A chain's servers share one metrics set: the first server's counts are the chain's.
    const out = this.#options.delegate?.watchCacheStats() ?? new Map<string, CacherStats>();
    for (const [def, { cacher }] of this.#installed) if (cacher) out.set(qualifiedResource(def), cacher.stats());
    return out;
  }

  /**
   * Forgets the history of every resource's watch cache, this server's and its delegates', up to `revision` (default
   * the storage's current one; see Cacher.compactHistory): a watch resumed from an older resourceVersion then gets
   * 410 Expired. For tests (fault injection after compacting the storage); nothing without watch caches.
   */
  async compactWatchCaches(revision?: number): Promise<void> {
    const target = revision ?? Number(await this.#options.storage.currentResourceVersion());
    await this.#options.delegate?.compactWatchCaches(target);
    await Promise.all([...this.#installed.values()].map(({ cacher }) => cacher?.compactHistory(target)));
  }

  /** apiserver_storage_objects: the object count of every cached resource (kube reads its storage's estimate). */
  #storageObjectCounts(): Map<string, number> {
    return new Map([...this.watchCacheStats()].map(([resource, s]) => [resource, s.objects]));
  }

  /** Routes a kind's served versions to its endpoint. */
  #install(installed: InstalledResource): void {
    const def = installed.endpoint.definition;
    const keys = routeKeys(def);
    for (const key of keys)
      if (this.#endpoints.has(key)) {
        const [group, version, plural] = key.split('/');
        throw new Error(`resource ${plural} in ${group || 'core'}/${version} is installed twice`);
      }
    for (const key of keys) this.#endpoints.set(key, installed);
    this.#installed.set(def, installed);
  }

  /** The served definitions of this server and its delegates (what discovery and OpenAPI describe), as of now. */
  definitions(): readonly ResourceDefinition[] {
    return this.#servedSet().definitions;
  }

  /** The Store serving a kind (`plural` or `plural.group`), for controllers running in this process. */
  store(resource: string): Store | undefined {
    const dot = resource.indexOf('.');
    const plural = dot < 0 ? resource : resource.slice(0, dot);
    const group = dot < 0 ? '' : resource.slice(dot + 1);
    for (const [def, { endpoint }] of this.#installed) if (def.plural === plural && def.group === group) return endpoint.store;
    return this.#options.delegate?.store(resource);
  }

  /** A kind's own delete where its Store's is not all of it (namespaces: lifecycle and finalization), for in-process controllers. */
  deleter(resource: string): ResourceDeleter | undefined {
    const store = this.store(resource);
    for (const { endpoint } of this.#installed.values()) if (endpoint.store === store) return endpoint.deleter;
    return this.#options.delegate?.deleter(resource);
  }

  /** A hook run once by start(), after the caches are ready (kube's AddPostStartHook); names are unique. */
  addPostStartHook(name: string, hook: LifecycleHook): void {
    if (this.#postStart.has(name)) throw new Error(`post-start hook ${JSON.stringify(name)} is already registered`);
    if (this.#started) throw new Error(`cannot add post-start hook ${JSON.stringify(name)}: the server has started`);
    this.#postStart.set(name, hook);
  }

  /** A hook run by shutdown() before the server stops serving (kube's AddPreShutdownHook). */
  addPreShutdownHook(name: string, hook: LifecycleHook): void {
    if (this.#preShutdown.has(name)) throw new Error(`pre-shutdown hook ${JSON.stringify(name)} is already registered`);
    this.#preShutdown.set(name, hook);
  }

  /** Waits for every watch cache, creates the default namespaces, then runs the post-start hooks in order. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#options.delegate?.start();
    await Promise.all([...this.#installed.values()].map((i) => i.cacher?.ready()));
    if (this.#namespaces) {
      for (const name of this.#options.defaultNamespaces ?? DEFAULT_NAMESPACES) {
        try {
          await this.#namespaces.store.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        } catch (err) {
          if ((err as { code?: number }).code !== 409) throw err;
        }
      }
    }
    for (const [name, hook] of this.#postStart) {
      await hook(this);
      this.#postStartDone.add(name);
    }
    // Every server of the chain passes its lookup; the outermost (started last) finds every server's Leases.
    this.#options.leaderElection?.start(() => this.store('leases.coordination.k8s.io'));
    this.#ready = true;
  }

  /** Whether shutdown() has begun (readyz fails from then on, as kube's does). */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Graceful shutdown in kube-apiserver's order: /readyz starts failing, the pre-shutdown hooks run, then `serving`
   * (if given; what `serve()` returned) stops accepting, drains non-long-running requests for up to
   * `gracePeriodMs` and ends watch streams cleanly; the audit backend is shut down (flushed); then the namespace
   * controller and the watch caches stop and the storage is closed (unless `closeStorage: false`), then the delegate
   * shuts down.
   */
  async shutdown(
    options: { serving?: { shutdown(o?: { gracePeriodMs?: number }): Promise<void> }; gracePeriodMs?: number } = {},
  ): Promise<void> {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#ready = false;
    for (const hook of this.#preShutdown.values()) await hook(this);
    // The singleton controllers stop and the Lease is released at once, so another process takes over without waiting.
    await this.#options.leaderElection?.stop();
    await options.serving?.shutdown(options.gracePeriodMs !== undefined ? { gracePeriodMs: options.gracePeriodMs } : {});
    // Requests are drained: flush the audit log, as kube shuts its audit backend down once serving stopped.
    await this.#options.audit?.backend.shutdown();
    this.#ownNamespacing?.controller.stop();
    this.#serviceAccountsController?.stop();
    this.#garbageCollector?.stop();
    for (const cacher of this.#pending.values()) cacher?.stop();
    await Promise.all([...this.#installed.values(), ...this.#retiring].map((i) => i.close()));
    if (this.#options.closeStorage !== false) await this.#options.storage.close?.();
    await this.#options.delegate?.shutdown();
  }

  /** The routes without the filters: what a delegating server calls for paths it does not serve. */
  get router(): Handler {
    this.#router ??= this.#buildRouter();
    return this.#router;
  }

  /** The CAs of `clientCA` and `requestHeader`: what serve's `tls.clientCA` should ask client certificates of. */
  get clientCAs(): CABundle[] {
    return clientCAsOf(this.#options);
  }

  /** The whole chain: filters, then the routes. */
  get handler(): Handler {
    this.#handler ??= compose(this.#buildChain(), this.router);
    return this.#handler;
  }

  #buildChain(): Filter[] {
    const o = this.#options;
    const authentication = certificateAuthentication(o.authentication, o);
    const limit = withMaxInFlightLimit({ maxReadOnly: o.maxRequestsInFlight ?? 400, maxMutating: o.maxMutatingRequestsInFlight ?? 200 });
    this.metrics.setInflightSource(limit.inFlight);
    const defaults: Filter[] = [
      withPanicRecovery(),
      ...(o.hsts?.length ? [withHsts(o.hsts)] : []),
      withWarnings(),
      withRequestInfo(),
      withMetrics(this.metrics),
      limit,
      ...(o.cors ? [withCors(o.cors)] : []),
      ...(authentication ? [withAuthentication({ metrics: this.metrics.authentication, ...authentication })] : []),
      ...(o.authorizer ? [withImpersonation({ authorizer: o.authorizer })] : []),
      ...(o.audit ? [withAudit(o.audit)] : []),
      ...(o.authorizer
        ? [
            withAuthorization({
              authorizer: o.authorizer,
              metrics: this.metrics.authorization,
              ...(o.authorizerLabels ? { labels: o.authorizerLabels } : {}),
            }),
          ]
        : []),
      ...(o.filters ?? []),
      withTimeout({ timeoutMs: (o.requestTimeoutSeconds ?? 60) * 1000, clock: this.#clock }),
      withRequestBodyLimit({ maxBytes: o.maxRequestBodyBytes }),
    ];
    return o.buildChain ? o.buildChain(defaults) : defaults;
  }

  #healthChecks(endpoint: 'healthz' | 'livez' | 'readyz'): HealthCheck[] {
    const checks: HealthCheck[] = [];
    if (endpoint !== 'livez')
      checks.push(
        namedHealthCheck('informer-sync', () => {
          if (!this.#started || (this.#options.watchCache !== false && !this.#ready && !this.#shuttingDown))
            throw new Error('caches are not synced');
        }),
      );
    checks.push(...this.#postStartHookChecks());
    if (endpoint === 'readyz')
      checks.push(
        namedHealthCheck('shutdown', () => {
          if (this.#shuttingDown) throw new Error('process is shutting down');
        }),
      );
    return [...checks, ...(this.#options.healthChecks ?? [])];
  }

  /** `poststarthook/<name>` of every hook of the chain from here on, the delegates' first (kube's server chain merges them). */
  #postStartHookChecks(): HealthCheck[] {
    const own = [...this.#postStart.keys()].map((name) =>
      namedHealthCheck(`poststarthook/${name}`, () => {
        if (!this.#postStartDone.has(name)) throw new Error('not finished');
      }),
    );
    const delegate = this.#options.delegate;
    return [...(delegate ? delegate.#postStartHookChecks() : []), ...own];
  }

  #buildRouter(): Handler {
    const o = this.#options;
    const routes: Filter[] = [
      healthHandler('healthz', this.#healthChecks('healthz')),
      healthHandler('livez', this.#healthChecks('livez')),
      healthHandler('readyz', this.#healthChecks('readyz')),
      versionHandler(o.version ?? {}),
      ...(o.serviceAccountTokens ? [issuerDiscoveryHandler(o.serviceAccountTokens)] : []),
      metricsHandler(this.metrics),
      // Both rebuild their documents when the served set is another object: once per change, on the next request.
      openAPIHandler(() => this.#servedSet().discovery, { external: o.providers?.find((p) => p.openAPI)?.openAPI }),
      discoveryHandler(() => this.#servedSet().discovery, { external: o.providers?.find((p) => p.discovery)?.discovery }),
    ];
    const resources: Handler = (ctx) => this.#serveResource(ctx);
    const others = compose(routes, resources);
    // Resource requests (nearly all traffic) skip the chain of non-resource routes.
    const own: Handler = (ctx) => (ctx.requestInfo?.isResourceRequest ? this.#serveResource(ctx) : others(ctx));
    const providerRoutes = (o.providers ?? []).flatMap((p) => p.routes ?? []);
    return providerRoutes.length > 0 ? compose(providerRoutes, own) : own;
  }

  /** Built once in the constructor: per-request work that can be done at start-up is (DESIGN.md). */
  #buildHandlerOptions(): ResourceHandlerOptions {
    return {
      clock: this.#clock,
      minRequestTimeoutSeconds: this.#options.minRequestTimeoutSeconds ?? 1800,
      ...(this.#options.admission ? { admission: this.#options.admission } : {}),
      writeChecks: this.#writeChecks,
      ...(this.#options.audit ? { onObjects: recordAuditObjects } : {}),
      onWatch: (def, version, delta) => {
        const gvk = { group: def.group, version, kind: def.kind };
        if (delta > 0) this.metrics.watchStarted(gvk);
        else this.metrics.watchEnded(gvk);
      },
    };
  }

  async #serveResource(ctx: RequestContext): Promise<void> {
    const info = ctx.requestInfo;
    const key = info?.isResourceRequest ? `${info.apiGroup}/${info.apiVersion}/${info.resource}` : undefined;
    const endpoint = key === undefined ? undefined : this.#endpoints.get(key);
    const virtual = key === undefined || endpoint ? undefined : this.#virtual.get(key);
    if (info && virtual) return handleVirtual(ctx, virtual, info, this.#handlerOptions);
    if (!info || !endpoint) {
      if (this.#options.delegate) return this.#options.delegate.router(ctx);
      throw pathNotFound();
    }
    const def = endpoint.endpoint.definition;
    const version = def.version(info.apiVersion);
    if (version?.deprecated) addWarning(ctx, deprecationWarningOf(def, version));
    // A watch is not counted: removing the kind ends it.
    if (info.verb === 'watch') return handleResource(ctx, endpoint.endpoint, info, this.#handlerOptions);
    return endpoint.serve(() => handleResource(ctx, endpoint.endpoint, info, this.#handlerOptions));
  }
}

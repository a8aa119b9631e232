import { type Clock, realClock } from '@kapi/apimachinery';
import { listAndWatch, type ResourceDefinition } from '@kapi/registry';
import type { Authorizer } from '../authorizer.ts';
import { sharedBootstrapPolicy } from './bootstrap/bootstrap-policy.ts';
import type { RbacObjectStore, RbacStores } from './bootstrap/rbac-object-store.ts';
import { reconcileBootstrapPolicy } from './bootstrap/reconcile-bootstrap-policy.ts';
import type { ServedResource } from './bootstrap/served-rules.ts';
import { ClusterRoleAggregationController, type ClusterRoleClient } from './cluster-role-aggregation-controller.ts';
import { rbacWriteChecks } from './escalation/rbac-write-checks.ts';
import type { WriteCheck } from './escalation/write-check.ts';
import { RBACAuthorizer } from './rbac-authorizer.ts';
import { RBACCache, type RBACCacheFeed } from './rbac-cache.ts';
import { rbacResources } from './rbac-resources.ts';
import { RBACRuleResolver } from './rule-resolver.ts';
import { RBAC_GROUP } from './types.ts';

/** What RBAC needs of one kind's store: what listAndWatch, reconciliation and the aggregation controller use (a registry Store). */
export type RBACKindStore = RbacObjectStore & Parameters<typeof listAndWatch>[0] & ClusterRoleClient;

/** What RBAC needs of the server it runs in (a GenericAPIServer of @kapi/server-core is one). */
export interface RBACHost {
  /** The store of `plural.group`. */
  store(resource: string): unknown;
  /** Every served kind (for the bootstrap policy's restriction to served kinds). */
  definitions(): readonly Pick<ResourceDefinition, 'group' | 'plural' | 'subresources'>[];
  virtualResources?(): readonly { readonly group: string; readonly resource: string }[];
  extraSubresources?(): readonly { readonly group: string; readonly resource: string; readonly subresource: string }[];
}

export interface RBACOptions {
  /**
   * The server's whole authorizer (every mode), asked whether a writer may `escalate` a role or `bind` one; read at
   * each check. Default: RBAC's own authorizer.
   */
  authorizer?: () => Authorizer;
  /** Reconcile kube-apiserver's bootstrap policy at start (kube's rbac/bootstrap-roles hook). Default true. */
  bootstrapPolicy?: boolean;
  /** Run the clusterrole-aggregation controller in the server (kube-controller-manager's). Default true. */
  aggregationController?: boolean;
  /** Timers of the informers' and controller's retries. */
  clock?: Clock;
  /** Told of failed lists, watches, syncs and bootstrap objects (all retried or reported, never fatal). Default console.error. */
  onError?: (err: unknown, what: string) => void;
}

const STORES = {
  roles: `roles.${RBAC_GROUP}`,
  clusterRoles: `clusterroles.${RBAC_GROUP}`,
  roleBindings: `rolebindings.${RBAC_GROUP}`,
  clusterRoleBindings: `clusterrolebindings.${RBAC_GROUP}`,
} as const;

/**
 * RBAC as kube-apiserver runs it, for one server: the four kinds with their escalation checks, an authorizer and rule
 * resolver over an in-memory copy of the RBAC objects kept from the server's watch caches (indexed by subject), the
 * bootstrap policy reconciled at start, and the clusterrole-aggregation controller. Install `provider()` on a
 * GenericAPIServer (`providers`) and put `authorizer` among its authorization modes.
 *
 * @example
 * const rbac = new RBAC({ authorizer: () => authorizer });
 * const authorizer = buildAuthorizer({ modes: ['RBAC'] }, { RBAC: () => rbac.authorizer });
 * const server = new GenericAPIServer({ storage, resources, providers: [rbac.provider()], authorizer });
 */
export class RBAC {
  readonly cache = new RBACCache();
  readonly authorizer: RBACAuthorizer = new RBACAuthorizer(this.cache);
  readonly #options: RBACOptions;
  readonly #abort = new AbortController();
  #aggregation: ClusterRoleAggregationController | undefined;

  constructor(options: RBACOptions = {}) {
    this.#options = options;
  }

  /** The kinds, write checks and hooks to install on the server (GenericAPIServerOptions.providers). */
  provider(): {
    name: string;
    resources: readonly ResourceDefinition[];
    writeChecks: WriteCheck[];
    postStartHooks: { name: string; run(server: RBACHost): Promise<void> }[];
    preShutdownHooks: { name: string; run(): void }[];
  } {
    const o = this.#options;
    return {
      name: RBAC_GROUP,
      resources: rbacResources,
      writeChecks: rbacWriteChecks({
        authorizer: o.authorizer ?? (() => this.authorizer),
        // kube's write path reads roles through the registry, and words a missing one so.
        ruleResolver: new RBACRuleResolver(this.cache, { notFound: 'registry' }),
      }),
      postStartHooks: [
        { name: 'rbac/informers', run: (server) => this.#startInformers(server) },
        ...(o.bootstrapPolicy !== false ? [{ name: 'rbac/bootstrap-roles', run: (server: RBACHost) => this.#bootstrap(server) }] : []),
        ...(o.aggregationController !== false
          ? [{ name: 'start-clusterrole-aggregation-controller', run: async (server: RBACHost) => this.#startAggregation(server) }]
          : []),
      ],
      preShutdownHooks: [{ name: 'rbac/stop', run: () => this.stop() }],
    };
  }

  /** Stops the informers and the aggregation controller. */
  stop(): void {
    this.#abort.abort();
    this.#aggregation?.stop();
  }

  #onError(err: unknown, what: string): void {
    if (this.#options.onError) this.#options.onError(err, what);
    else console.error(`rbac: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** Lists and watches the four kinds into the cache; resolves when all four were listed. */
  async #startInformers(server: RBACHost): Promise<void> {
    const feeds: [keyof typeof STORES, RBACCacheFeed][] = [
      ['roles', this.cache.roles],
      ['clusterRoles', this.cache.clusterRoles],
      ['roleBindings', this.cache.roleBindings],
      ['clusterRoleBindings', this.cache.clusterRoleBindings],
    ];
    for (const [kind, feed] of feeds) {
      void listAndWatch(storeOf(server, kind), {
        onEvent: (type, obj) => feed.apply(type, obj),
        onList: async (items) => feed.listed(items),
        signal: this.#abort.signal,
        clock: this.#options.clock ?? realClock,
        retryAfterMs: 1000,
        onError: (err) => this.#onError(err, `list and watch ${STORES[kind]}`),
      });
    }
    await this.cache.whenSynced();
  }

  async #bootstrap(server: RBACHost): Promise<void> {
    const namespaces = server.store('namespaces') as RbacStores['namespaces'] | undefined;
    const result = await reconcileBootstrapPolicy(
      {
        roles: storeOf(server, 'roles'),
        clusterRoles: storeOf(server, 'clusterRoles'),
        roleBindings: storeOf(server, 'roleBindings'),
        clusterRoleBindings: storeOf(server, 'clusterRoleBindings'),
        // kube-system's roles need kube-system: made if missing (the server's default namespaces normally are there)
        ...(namespaces ? { namespaces } : {}),
      },
      sharedBootstrapPolicy(servedResources(server)),
    );
    for (const f of result.failed) this.#onError(f.error, `bootstrap ${f.name}`);
  }

  #startAggregation(server: RBACHost): void {
    this.#aggregation = new ClusterRoleAggregationController({
      clusterRoles: storeOf(server, 'clusterRoles'),
      ...(this.#options.clock ? { clock: this.#options.clock } : {}),
      onError: (err, name) => this.#onError(err, `aggregate clusterrole ${name ?? ''}`.trim()),
    });
    if (!this.#abort.signal.aborted) this.#aggregation.start();
  }
}

function storeOf(server: RBACHost, kind: keyof typeof STORES): RBACKindStore {
  const store = server.store(STORES[kind]);
  if (!store) throw new Error(`RBAC needs ${STORES[kind]} served by this server (install RBAC's provider)`);
  return store as RBACKindStore;
}

/** What `server` serves: its kinds with their subresources, its virtual resources and extra subresources. */
export function servedResources(server: RBACHost): ServedResource[] {
  const served = new Map<string, { group: string; resource: string; subresources: string[] }>();
  const entry = (group: string, resource: string) => {
    const key = `${resource}.${group}`;
    const e = served.get(key) ?? { group, resource, subresources: [] };
    served.set(key, e);
    return e;
  };
  for (const def of server.definitions()) {
    const e = entry(def.group, def.plural);
    if (def.subresources.status) e.subresources.push('status');
    if (def.subresources.scale) e.subresources.push('scale');
  }
  for (const v of server.virtualResources?.() ?? []) entry(v.group, v.resource);
  for (const s of server.extraSubresources?.() ?? []) entry(s.group, s.resource).subresources.push(s.subresource);
  return [...served.values()];
}

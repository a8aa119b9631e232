import type { AdmissionAttributes } from '@kapi/admission';
import type { ResourceDefinition } from '@kapi/registry';
import type { ExternalDiscovery } from '../discovery/external.ts';
import type { Filter } from '../filters/context.ts';
import type { ExternalOpenAPI } from '../openapi/external.ts';
import type { GenericAPIServer } from './generic-api-server.ts';

/**
 * A check a package adds to every write of one resource it serves, as kube's policy-based REST wrappers do (RBAC's
 * escalation checks wrap the roles' and bindings' storage): it sees the object of a create, update or patch
 * (dryRun included) and the user who writes it, and refuses by throwing.
 */
export interface WriteCheck {
  /** The resource it guards: `plural.group` (`plural` for the core group), e.g. 'roles.rbac.authorization.k8s.io'. */
  readonly resource: string;
  /**
   * Runs inside the Store's create/update/patch (dryRun included) on the object as sent or patched, after mutating
   * admission and before the kind's strategy (defaults, validation) and validating admission, as kube's wrappers do;
   * on every retry of an update. Throws a StatusError to refuse.
   */
  check(attrs: AdmissionAttributes): Promise<void>;
}

/** A hook run once by start(), after the caches are ready (kube's post-start hook); /healthz shows `poststarthook/<name>`. */
export interface PostStartHook {
  readonly name: string;
  run(server: GenericAPIServer): Promise<void> | void;
}

/** A hook run by shutdown() before the server stops serving (kube's pre-shutdown hook). */
export interface PreShutdownHook {
  readonly name: string;
  run(): Promise<void> | void;
}

/**
 * What a package adds to a GenericAPIServer, as kube's RESTStorageProvider plus its post-start hooks: the kinds it
 * serves, the checks on their writes, and what runs once the server has started (controllers, bootstrap data) and
 * before it stops. `GenericAPIServerOptions.providers` installs them.
 *
 * @example
 * const rbac: APIProvider = {
 *   name: 'rbac.authorization.k8s.io',
 *   resources: [Role, RoleBinding],
 *   writeChecks: [{ resource: 'roles.rbac.authorization.k8s.io', check: confirmNoEscalation }],
 *   postStartHooks: [{ name: 'rbac/bootstrap-roles', run: (server) => reconcile(server.store('clusterroles.rbac.authorization.k8s.io')) }],
 * };
 */
export interface APIProvider {
  readonly name: string;
  readonly resources?: readonly ResourceDefinition[];
  readonly writeChecks?: readonly WriteCheck[];
  /** Run by start() after the caches are ready (each a post-start hook, so /healthz shows poststarthook/<name>). */
  readonly postStartHooks?: readonly PostStartHook[];
  readonly preShutdownHooks?: readonly PreShutdownHook[];
  /**
   * Handlers that see every request reaching this server's routes (after the filters: authenticated and authorized),
   * resource requests included, before the server's own routes; `next()` goes on to them. kube-aggregator's proxy
   * to remote APIServices is one: it answers the paths of the group-versions it proxies and passes on the rest.
   */
  readonly routes?: readonly Filter[];
  /**
   * Group-versions other servers serve that this server's discovery lists, and the priorities ordering it
   * (kube-aggregator's remote APIServices). One provider of a server gives it.
   */
  readonly discovery?: ExternalDiscovery;
  /** Other servers' OpenAPI specs merged into this server's (kube-aggregator's remote APIServices). */
  readonly openAPI?: ExternalOpenAPI;
}

/** The `plural.group` name (just `plural` for the core group) a WriteCheck names its resource by. */
export function qualifiedResource(def: Pick<ResourceDefinition, 'plural' | 'group'>): string {
  return def.group ? `${def.plural}.${def.group}` : def.plural;
}

import type { ResourceDefinition } from '@kapi/registry';
import type { GenericAPIServer } from '@kapi/server-core';
import { APIREGISTRATION_GROUP, type APIService } from '../apiservice/types.ts';
import { apiServiceName } from '../apiservice/validation.ts';
import type { AutoRegisterController } from './autoregister-controller.ts';
import { type APIServicePriority, apiServicePriority, DEFAULT_API_SERVICE_PRIORITY, KUBE_API_SERVICE_PRIORITIES } from './priorities.ts';

/** What a server chain serves, as the group-versions its discovery lists. */
export type ServedSource = Pick<GenericAPIServer, 'definitions' | 'virtualResources' | 'onResourcesChanged'>;

export interface ServedAPIServicesOptions {
  /** Priorities by `group/version` ("/v1" for the legacy group). Default kube's (KUBE_API_SERVICE_PRIORITIES). */
  priorities?: ReadonlyMap<string, APIServicePriority>;
  /** The priority of a group-version not in `priorities`. Default 1000/100, as kube gives a CRD's. */
  defaultPriority?: APIServicePriority;
}

/** A served group-version: `group/version`, and whether only custom-resource-like kinds serve it (CRDs). */
interface ServedGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly customResources: boolean;
}

/**
 * The group-versions a server chain serves (its kinds' served versions and its virtual resources'), as kube's
 * ListedPaths gives them to apiServicesToRegister. A group-version served only by kinds served as custom resources
 * (`strategicMergePatch: false`, what @kapi/apiextensions installs for CRDs) counts as a CRD's.
 */
export function servedGroupVersions(source: Pick<ServedSource, 'definitions' | 'virtualResources'>): Map<string, ServedGroupVersion> {
  const out = new Map<string, { group: string; version: string; customResources: boolean }>();
  const add = (group: string, version: string, customResource: boolean) => {
    const name = apiServiceName(group, version);
    const seen = out.get(name);
    if (seen) seen.customResources &&= customResource;
    else out.set(name, { group, version, customResources: customResource });
  };
  for (const def of source.definitions() as readonly ResourceDefinition[])
    for (const v of def.versions) if (v.served) add(def.group, v.name, def.strategicMergePatch === false);
  for (const v of source.virtualResources()) add(v.group, v.version, false);
  return out;
}

/** The local APIService of a group-version (makeAPIService): no spec.service, the group-version's priority. */
export function localAPIService(group: string, version: string, priority: APIServicePriority): APIService {
  return {
    apiVersion: `${APIREGISTRATION_GROUP}/v1`,
    kind: 'APIService',
    metadata: { name: apiServiceName(group, version) },
    spec: { group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  };
}

/**
 * kube-apiserver's apiServicesToRegister and crdregistration controller over a kapi server chain: every group-version
 * `source` serves now is registered with `controller` (kube's own groups and other built-in ones once at start,
 * `onstart`; a CRD's continuously, `true`), and every group-version that comes or goes while the chain runs is
 * registered continuously or removed. Returns the function that stops following `source`.
 */
export function registerServedAPIServices(
  source: ServedSource,
  controller: AutoRegisterController,
  options: ServedAPIServicesOptions = {},
): () => void {
  const table = options.priorities ?? KUBE_API_SERVICE_PRIORITIES;
  const fallback = options.defaultPriority ?? DEFAULT_API_SERVICE_PRIORITY;
  const apiService = (gv: ServedGroupVersion) =>
    localAPIService(gv.group, gv.version, apiServicePriority(gv.group, gv.version, table, fallback));
  let served = servedGroupVersions(source);
  for (const gv of served.values()) {
    if (gv.customResources) controller.addAPIServiceToSync(apiService(gv));
    else controller.addAPIServiceToSyncOnStart(apiService(gv));
  }
  return source.onResourcesChanged(() => {
    const now = servedGroupVersions(source);
    for (const [name, gv] of now) if (!served.has(name)) controller.addAPIServiceToSync(apiService(gv));
    for (const name of served.keys()) if (!now.has(name)) controller.removeAPIServiceToSync(name, { whileRunning: true });
    served = now;
  });
}

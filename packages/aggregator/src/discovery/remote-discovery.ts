import { type Clock, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import type {
  APIResource,
  APIResourceDiscovery,
  APIVersionDiscovery,
  ExternalDiscovery,
  ExternalGroupVersion,
  GroupVersionPriority,
} from '@kapi/server-core';
import { APIREGISTRATION_GROUP, type APIService } from '../apiservice/types.ts';
import { availableCondition } from '../apiservice/validation.ts';
import { APIServiceControllerLoop } from '../controller/apiservice-controller-loop.ts';
import { remoteGet } from '../remote/remote-get.ts';
import type { RemoteTarget } from '../remote/remote-transport.ts';
import { decodeGroupDiscoveryList, decodeResourceList } from './decode-discovery.ts';

/** What the discovery manager needs of the aggregator's RemoteTransport. */
export interface RemoteDiscoveryTransport {
  /** Where a remote APIService's requests go, with its verifying agent; throws when its Service does not resolve. */
  target(apiService: APIService): RemoteTarget;
}

export interface RemoteDiscoveryOptions {
  /** Without one, remote APIServices are listed but never fetched (Stale, no resources). */
  transport?: RemoteDiscoveryTransport | undefined;
  clock?: Clock;
  /** How often every remote APIService's documents are fetched again; default kube's minute. */
  refreshMs?: number;
  onError?: (err: unknown) => void;
}

/** The Accept kube-aggregator's discovery manager sends: aggregated discovery v2 (or v2beta1), else JSON. */
const ACCEPT = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json',
].join(',');
const REFRESH_MS = 60_000;

/** The documents last fetched from one Service (kube caches per Service: APIServices may share one). */
interface Fetched {
  /** By "group/version". */
  versions: Map<string, APIVersionDiscovery>;
  /** The aggregated document's ETag, sent back as If-None-Match. */
  etag?: string;
}

interface Entry {
  resources: readonly APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

/**
 * kube-aggregator's discovery manager for remote APIServices, as an ExternalDiscovery for the server every request
 * enters: each remote APIService's group-version is listed with the resources its server lists — aggregated discovery
 * v2 from the remote's /apis (If-None-Match with the last ETag), or its legacy /apis/<group>/<version> converted as
 * kube does when it has none — fetched as `system:kube-aggregator` when the APIService changes and every minute. An
 * APIService that is not Available (kube's proxy answers 503 for it) or whose fetch failed is listed `Stale` with what
 * was last fetched. Every APIService's priorities (local ones included) order the documents.
 */
export class RemoteDiscovery implements ExternalDiscovery {
  readonly #transport: RemoteDiscoveryTransport | undefined;
  readonly #loop: APIServiceControllerLoop;
  /** By Service key (namespace/name:port). */
  readonly #fetched = new Map<string, Fetched>();
  /** By APIService name. */
  readonly #entries = new Map<string, Entry>();
  #generation = 0;
  #list: ExternalGroupVersion[] | undefined;

  constructor(options: RemoteDiscoveryOptions = {}) {
    this.#transport = options.transport;
    // kube: the default controller rate limiter (5 ms doubling to 1000 s); the minute's refresh comes anyway.
    this.#loop = new APIServiceControllerLoop({
      sync: (name) => this.#sync(name),
      clock: options.clock ?? realClock,
      onError: options.onError ?? (() => {}),
      resyncRemoteMs: options.refreshMs ?? REFRESH_MS,
      // kube's discovery manager runs 2 workers.
      workers: 2,
      onChange: (name, present) => {
        // Priorities or the set of remote group-versions may have changed.
        this.#changed();
        if (!present) this.#entries.delete(name);
      },
    });
  }

  generation(): number {
    return this.#generation;
  }

  groupVersions(): readonly ExternalGroupVersion[] {
    if (this.#list) return this.#list;
    const list: ExternalGroupVersion[] = [];
    for (const [name, s] of this.#loop.current) {
      if (!s.spec?.service) continue;
      const entry = this.#entries.get(name) ?? { resources: [], freshness: 'Stale' as const };
      list.push({ group: s.spec.group ?? '', version: s.spec.version ?? '', ...entry });
    }
    this.#list = list;
    return list;
  }

  priority(group: string, version: string): GroupVersionPriority | undefined {
    const spec = this.#loop.current.get(`${version}.${group}`)?.spec;
    // kube's aggregator lists its own group first ("It's good to be king"), whatever its APIService says.
    if (group === APIREGISTRATION_GROUP)
      return { groupPriorityMinimum: Number.MAX_SAFE_INTEGER, versionPriority: spec?.versionPriority ?? 0 };
    if (!spec) return undefined;
    return { groupPriorityMinimum: spec.groupPriorityMinimum ?? 0, versionPriority: spec.versionPriority ?? 0 };
  }

  /**
   * Starts the informer over `apiServices`, the fetches and the refresh; resolves once the first list is in. Until
   * then nothing is listed (the provider hands this object to its server before the store exists).
   */
  start(apiServices: Store<APIService>): Promise<void> {
    return this.#loop.start(apiServices);
  }

  stop(): void {
    this.#loop.stop();
  }

  #changed(): void {
    this.#generation++;
    this.#list = undefined;
  }

  #set(name: string, entry: Entry): void {
    const old = this.#entries.get(name);
    if (old && old.freshness === entry.freshness && JSON.stringify(old.resources) === JSON.stringify(entry.resources)) return;
    this.#entries.set(name, entry);
    this.#changed();
  }

  async #sync(name: string): Promise<void> {
    const apiService = this.#loop.current.get(name);
    if (!apiService?.spec?.service) {
      if (this.#entries.delete(name)) this.#changed();
      return;
    }
    const group = apiService.spec.group ?? '';
    const version = apiService.spec.version ?? '';
    const gv = `${group}/${version}`;
    const service = apiService.spec.service;
    const key = `${service.namespace ?? ''}/${service.name ?? ''}:${service.port ?? 443}`;
    const previous = this.#entries.get(name)?.resources ?? [];
    // kube fetches through its proxy, which answers 503 for an APIService that is not Available.
    if (!this.#transport || availableCondition(apiService)?.status !== 'True') {
      this.#set(name, { resources: previous, freshness: 'Stale' });
      return;
    }
    try {
      const fetched = await this.#fetch(apiService, key, gv);
      this.#set(name, { resources: fetched.versions.get(gv)?.resources ?? [], freshness: 'Current' });
    } catch (err) {
      this.#set(name, { resources: previous, freshness: 'Stale' });
      throw err;
    }
  }

  /** The Service's documents: aggregated discovery when it serves it, else the group-version's APIResourceList. */
  async #fetch(apiService: APIService, key: string, gv: string): Promise<Fetched> {
    const target = (this.#transport as RemoteDiscoveryTransport).target(apiService);
    const cached = this.#fetched.get(key);
    // kube's discovery manager asks for the aggregated document as system:kube-aggregator in system:masters.
    const headers: Record<string, string> = {
      Accept: ACCEPT,
      'X-Remote-User': 'system:kube-aggregator',
      'X-Remote-Group': 'system:masters',
    };
    if (cached?.etag) headers['If-None-Match'] = cached.etag;
    const res = await remoteGet(new URL('/apis', target.url), target.agent, headers);
    if (res.status === 304 && cached) return cached;
    if (res.status === 200 && /as=APIGroupDiscoveryList/.test(res.contentType)) {
      const fetched: Fetched = { versions: decodeGroupDiscoveryList(res.body), ...(res.etag ? { etag: res.etag } : {}) };
      this.#fetched.set(key, fetched);
      return fetched;
    }
    // No aggregated discovery there: the group-version's legacy document.
    const path = gv.startsWith('/') ? `/api/${gv.slice(1)}` : `/apis/${gv}`;
    const legacy = await remoteGet(new URL(path, target.url), target.agent, {
      Accept: 'application/json',
      'X-Remote-User': 'system:kube-aggregator',
    });
    if (legacy.status !== 200)
      throw new Error(`failed to download discovery for ${path}: ResponseCode: ${legacy.status}, Body: ${legacy.body.toString('utf8')}`);
    const fetched: Fetched = {
      versions: new Map([
        [gv, { version: gv.slice(gv.indexOf('/') + 1), resources: resourcesToDiscovery(decodeResourceList(legacy.body)) }],
      ]),
    };
    this.#fetched.set(key, fetched);
    return fetched;
  }
}

/**
 * kube's ConvertGroupVersionIntoToDiscovery: an APIResourceList's resources as aggregated discovery's, subresources
 * (`parent/sub`) listed under their parent.
 */
export function resourcesToDiscovery(list: readonly APIResource[]): APIResourceDiscovery[] {
  const out: APIResourceDiscovery[] = [];
  const parents = new Map<string, APIResourceDiscovery>();
  const scope = (r: APIResource) => (r.namespaced ? 'Namespaced' : 'Cluster') as 'Namespaced' | 'Cluster';
  for (const r of list) {
    if (r.name.includes('/')) continue;
    const d: APIResourceDiscovery = {
      resource: r.name,
      responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind },
      scope: scope(r),
      singularResource: r.singularName,
      verbs: [...r.verbs],
    };
    if (r.shortNames?.length) d.shortNames = [...r.shortNames];
    if (r.categories?.length) d.categories = [...r.categories];
    out.push(d);
    parents.set(r.name, d);
  }
  for (const r of list) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parentName = r.name.slice(0, slash);
    const parent = parents.get(parentName);
    // kube's conversion fails (and the fetch with it) for a subresource without its resource.
    if (!parent) throw new Error(`subresource ${r.name} has no parent resource ${parentName}`);
    parent.subresources ??= [];
    parent.subresources.push({
      subresource: r.name.slice(slash + 1),
      // kube never leaves it out ("avoid nil panics in v0.26.0-v0.26.3 client-go clients").
      responseKind: r.kind ? { group: r.group ?? '', version: r.version ?? '', kind: r.kind } : { group: '', version: '', kind: '' },
      verbs: [...r.verbs],
    });
  }
  return out;
}

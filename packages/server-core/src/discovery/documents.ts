import { createHash } from 'node:crypto';
import type { ResourceDefinition, ResourceVersion } from '@kapi/registry';
import { Scheme } from '@kapi/registry';
import type { ExternalDiscovery } from './external.ts';
import { storageVersionHash } from './storage-version-hash.ts';
import type {
  APIGroup,
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIGroupList,
  APIResource,
  APIResourceDiscovery,
  APIResourceList,
  APISubresourceDiscovery,
  APIVersionDiscovery,
  APIVersions,
  GroupVersionForDiscovery,
} from './types.ts';
import { compareKubeAwareVersions } from './version-priority.ts';

/**
 * A resource served without a ResourceDefinition (and so without a Store): what discovery says of one group-version of
 * it. GenericAPIServer's VirtualResource is one.
 */
export interface VirtualResourceInfo {
  readonly group: string;
  readonly version: string;
  /** The plural, as in the path. */
  readonly resource: string;
  readonly singularName: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** e.g. ['create']. */
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

/** A subresource of a served kind (status, scale, namespaces/finalize, serviceaccounts/token, …), listed under its parent. */
export interface SubresourceInfo {
  /** The parent: its group and plural. */
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  /** The kind it reads and answers with; undefined: the parent's own kind, in the version listed (status, finalize). */
  readonly responseKind?: { readonly group: string; readonly version: string; readonly kind: string };
  /** Sorted: e.g. ['get', 'patch', 'update']. */
  readonly verbs: readonly string[];
}

/** Definitions plus resources served without one (listed after the definitions' groups, sorted like them). */
export interface DiscoveryEntries {
  readonly definitions: readonly ResourceDefinition[];
  readonly virtual: readonly VirtualResourceInfo[];
  /**
   * Every subresource of the definitions, in the order listed under each parent (a served kind's subresource storages,
   * see GenericAPIServer). Unset: those its definition declares (definitionSubresources).
   */
  readonly subresources?: readonly SubresourceInfo[];
}

/** Where discovery reads the kinds from: a Scheme, definitions in registration order, or definitions plus virtual resources. */
export type DiscoverySource = Scheme | readonly ResourceDefinition[] | DiscoveryEntries;

const isEntries = (source: DiscoverySource): source is DiscoveryEntries => !(source instanceof Scheme) && !Array.isArray(source);

/** The virtual resources of a source (none for a Scheme or a list of definitions). */
export function virtualResourcesOf(source: DiscoverySource): readonly VirtualResourceInfo[] {
  return isEntries(source) ? source.virtual : [];
}

/** The subresources of a definition in a source. */
export function subresourcesIn(source: DiscoverySource, def: ResourceDefinition): readonly SubresourceInfo[] {
  if (!isEntries(source) || !source.subresources) return definitionSubresources(def);
  return source.subresources.filter((x) => x.group === def.group && x.resource === def.plural);
}

/**
 * The subresources a definition declares, as a server serves them without further storages: a namespace's finalize,
 * then status, scale and proxy.
 */
export function definitionSubresources(def: ResourceDefinition): SubresourceInfo[] {
  const parent = { group: def.group, resource: def.plural };
  const out: SubresourceInfo[] = [];
  if (isNamespace(def)) out.push({ ...parent, subresource: 'finalize', verbs: ['update'] });
  if (def.subresources.status) out.push({ ...parent, subresource: 'status', verbs: [...SUBRESOURCE_VERBS] });
  if (def.subresources.scale) out.push({ ...parent, subresource: 'scale', responseKind: { ...SCALE_KIND }, verbs: [...SUBRESOURCE_VERBS] });
  // A connecter's verbs, as subresourceVerbs lists them.
  if (def.subresources.proxy) out.push({ ...parent, subresource: 'proxy', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
  return out;
}

/** The verbs of a resource kapi serves through its Store, sorted as kube lists them. */
export const RESOURCE_VERBS: readonly string[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The verbs of the status and scale subresources. */
export const SUBRESOURCE_VERBS: readonly string[] = ['get', 'patch', 'update'];

/** The response kind of every scale subresource. */
export const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

/** The definitions of a source, in registration order. */
export function definitionsOf(source: DiscoverySource): readonly ResourceDefinition[] {
  if (isEntries(source)) return source.definitions;
  return source instanceof Scheme ? source.definitions() : (source as readonly ResourceDefinition[]);
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The definitions serving `group`/`version`, with that version. */
function servedIn(source: DiscoverySource, group: string, version: string): { def: ResourceDefinition; version: ResourceVersion }[] {
  const out: { def: ResourceDefinition; version: ResourceVersion }[] = [];
  for (const def of definitionsOf(source)) {
    if (def.group !== group) continue;
    const v = def.version(version);
    if (v?.served) out.push({ def, version: v });
  }
  return out;
}

/**
 * Every group with a served version (this server's and `external`'s) mapped to its served versions. Without
 * `external`: groups by name, versions highest kube version first. With it, kube-aggregator's order: groups by their
 * highest groupPriorityMinimum, then by name; versions by versionPriority, then kube's version order.
 */
function servedGroups(source: DiscoverySource, external?: ExternalDiscovery): Map<string, string[]> {
  const groups = new Map<string, Set<string>>();
  const add = (group: string, version: string): void => {
    const set = groups.get(group) ?? new Set<string>();
    groups.set(group, set);
    set.add(version);
  };
  for (const def of definitionsOf(source)) for (const v of def.versions) if (v.served) add(def.group, v.name);
  for (const v of virtualResourcesOf(source)) add(v.group, v.version);
  for (const gv of external?.groupVersions() ?? []) add(gv.group, gv.version);
  const byVersion = (a: string, b: string): number => compareKubeAwareVersions(b, a);
  if (!external) {
    const out = new Map<string, string[]>();
    for (const name of [...groups.keys()].sort(byCodePoint)) out.set(name, [...(groups.get(name) ?? [])].sort(byVersion));
    return out;
  }
  const versionPriority = (g: string, v: string): number => external.priority(g, v)?.versionPriority ?? 0;
  const groupPriority = new Map<string, number>();
  for (const [g, versions] of groups)
    groupPriority.set(g, Math.max(...[...versions].map((v) => external.priority(g, v)?.groupPriorityMinimum ?? 0)));
  const names = [...groups.keys()].sort((a, b) => (groupPriority.get(b) ?? 0) - (groupPriority.get(a) ?? 0) || byCodePoint(a, b));
  const out = new Map<string, string[]>();
  for (const g of names)
    out.set(
      g,
      [...(groups.get(g) ?? [])].sort((a, b) => versionPriority(g, b) - versionPriority(g, a) || byVersion(a, b)),
    );
  return out;
}

function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

function splitGroupVersion(groupVersion: string): { group: string; version: string } | undefined {
  const parts = groupVersion.split('/');
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: parts[0] as string };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') return { group: parts[0] as string, version: parts[1] as string };
  return undefined;
}

function groupEntry(name: string, versions: readonly string[]): APIGroup {
  const list: GroupVersionForDiscovery[] = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: list, preferredVersion: { ...(list[0] as GroupVersionForDiscovery) } };
}

/** GET /api: the legacy group's versions, every client CIDR pointed at `serverAddress` ("host:port"). */
export function apiVersions(serverAddress: string, versions: readonly string[] = ['v1']): APIVersions {
  return {
    kind: 'APIVersions',
    versions: [...versions],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/**
 * GET /apis: every named group with a served version, sorted by name, or with `external` (kube-aggregator's remote
 * group-versions and APIService priorities) in kube-aggregator's order. Versions run highest priority first and the
 * first is the preferred one, as for CRDs.
 */
export function apiGroupList(source: DiscoverySource, external?: ExternalDiscovery): APIGroupList {
  const groups: APIGroup[] = [];
  for (const [name, versions] of servedGroups(source, external)) if (name !== '') groups.push(groupEntry(name, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** GET /apis/<group>; undefined when the group serves nothing (a 404) or is the core group. */
export function apiGroup(source: DiscoverySource, group: string, external?: ExternalDiscovery): APIGroup | undefined {
  if (group === '') return undefined;
  const versions = servedGroups(source, external).get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group, versions) } : undefined;
}

// core/v1 Namespace is served by its own REST (no deletecollection) and has a finalize subresource (update only).
const isNamespace = (def: ResourceDefinition): boolean => def.group === '' && def.kind === 'Namespace';
const verbsOf = (def: ResourceDefinition): string[] =>
  isNamespace(def) ? RESOURCE_VERBS.filter((v) => v !== 'deletecollection') : [...RESOURCE_VERBS];

/** A definition's entries in an APIResourceList: the resource, then its subresources (default: those it declares). */
export function apiResourcesOf(
  def: ResourceDefinition,
  subresources: readonly SubresourceInfo[] = definitionSubresources(def),
): APIResource[] {
  const main: APIResource = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: verbsOf(def),
  };
  if (def.shortNames.length > 0) main.shortNames = [...def.shortNames];
  if (def.categories.length > 0) main.categories = [...def.categories];
  main.storageVersionHash = storageVersionHash(def.group, def.storageVersion.name, def.kind);
  const out = [main];
  // The parent's own kind is listed by kind alone; another kind with its group and version.
  for (const x of subresources)
    out.push({
      name: `${def.plural}/${x.subresource}`,
      singularName: '',
      namespaced: def.namespaced,
      ...(x.responseKind ? { group: x.responseKind.group, version: x.responseKind.version } : {}),
      kind: x.responseKind?.kind ?? def.kind,
      verbs: [...x.verbs],
    });
  return out;
}

/**
 * GET /api/v1 ("v1") or /apis/<group>/<version> ("example.kapi.dev/v1"): the served kinds' resources and
 * subresources sorted by name, as kube's CRD handler lists them; undefined when the group-version serves nothing.
 */
export function apiResourceList(source: DiscoverySource, groupVersion: string): APIResourceList | undefined {
  const gv = splitGroupVersion(groupVersion);
  if (!gv) return undefined;
  const served = servedIn(source, gv.group, gv.version);
  const virtual = virtualIn(source, gv.group, gv.version);
  if (served.length === 0 && virtual.length === 0) return undefined;
  const resources = [
    ...served.flatMap(({ def }) => apiResourcesOf(def, subresourcesIn(source, def))),
    ...virtual.map(apiResourceOfVirtual),
  ].sort((a, b) => byCodePoint(a.name, b.name));
  const head = gv.group === '' ? { kind: 'APIResourceList' as const } : { kind: 'APIResourceList' as const, apiVersion: 'v1' as const };
  return { ...head, groupVersion: groupVersionString(gv.group, gv.version), resources };
}

/** A definition's entry in one version of aggregated discovery (apiextensions' CRD discovery controller). */
export function resourceDiscoveryOf(
  def: ResourceDefinition,
  version: string,
  subresources: readonly SubresourceInfo[] = definitionSubresources(def),
): APIResourceDiscovery {
  const out: APIResourceDiscovery = {
    resource: def.plural,
    responseKind: { group: def.group, version, kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: verbsOf(def),
  };
  if (def.shortNames.length > 0) out.shortNames = [...def.shortNames];
  if (def.categories.length > 0) out.categories = [...def.categories];
  const subs: APISubresourceDiscovery[] = subresources.map((x) => ({
    subresource: x.subresource,
    responseKind: x.responseKind ? { ...x.responseKind } : { group: def.group, version, kind: def.kind },
    verbs: [...x.verbs],
  }));
  if (subs.length > 0) out.subresources = subs;
  return out;
}

/** A virtual resource's entry in an APIResourceList (no storageVersionHash: nothing is stored). */
export function apiResourceOfVirtual(v: VirtualResourceInfo): APIResource {
  const out: APIResource = { name: v.resource, singularName: v.singularName, namespaced: v.namespaced, kind: v.kind, verbs: [...v.verbs] };
  if (v.shortNames?.length) out.shortNames = [...v.shortNames];
  if (v.categories?.length) out.categories = [...v.categories];
  return out;
}

/**
 * A virtual resource's entry in aggregated discovery. Its responseKind has empty group and version, as kube-apiserver's
 * built-in REST endpoints (which virtual resources stand for) list theirs.
 */
export function resourceDiscoveryOfVirtual(v: VirtualResourceInfo): APIResourceDiscovery {
  const out: APIResourceDiscovery = {
    resource: v.resource,
    responseKind: { group: '', version: '', kind: v.kind },
    scope: v.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: v.singularName,
    verbs: [...v.verbs],
  };
  if (v.shortNames?.length) out.shortNames = [...v.shortNames];
  if (v.categories?.length) out.categories = [...v.categories];
  return out;
}

const virtualIn = (source: DiscoverySource, group: string, version: string): VirtualResourceInfo[] =>
  virtualResourcesOf(source).filter((v) => v.group === group && v.version === version);

export interface AggregatedDiscoveryOptions {
  /** true: the core group only (GET /api); false: the named groups (GET /apis). */
  legacy: boolean;
  /** Group-versions served elsewhere, listed with their fetched resources, and the priorities ordering all. */
  external?: ExternalDiscovery | undefined;
}

/**
 * apidiscovery.k8s.io/v2 APIGroupDiscoveryList for GET /api (legacy) or /apis: a group per item (sorted by
 * name; the core group's metadata has no name), its served versions highest priority first, every version
 * 'Current', resources sorted by name.
 */
export function aggregatedDiscovery(source: DiscoverySource, options: AggregatedDiscoveryOptions): APIGroupDiscoveryList {
  const items: APIGroupDiscovery[] = [];
  const external = new Map((options.external?.groupVersions() ?? []).map((gv) => [`${gv.group}/${gv.version}`, gv]));
  for (const [name, versions] of servedGroups(source, options.external)) {
    if ((name === '') !== options.legacy) continue;
    items.push({
      metadata: name === '' ? { creationTimestamp: null } : { name, creationTimestamp: null },
      versions: versions.map((version): APIVersionDiscovery => {
        // A remote group-version: the resources its server listed, as fetched (the proxy answers its requests).
        const remote = external.get(`${name}/${version}`);
        if (remote) return { version, resources: remote.resources.map((r) => ({ ...r })), freshness: remote.freshness };
        return {
          version,
          resources: [
            ...servedIn(source, name, version).map(({ def }) => resourceDiscoveryOf(def, version, subresourcesIn(source, def))),
            ...virtualIn(source, name, version).map(resourceDiscoveryOfVirtual),
          ].sort((a, b) => byCodePoint(a.resource, b.resource)),
          freshness: 'Current' as const,
        };
      }),
    });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

/**
 * The ETag of a discovery document, as kube's aggregated handler computes it: upper-case hex of sha512 over the
 * document's JSON. Unquoted: the HTTP layer sends it quoted (`"…"`) and compares If-None-Match with that.
 */
export function discoveryETag(doc: unknown): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

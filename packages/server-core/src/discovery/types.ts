/**
 * The discovery documents kube-apiserver serves, as JSON: meta/v1 APIVersions, APIGroupList, APIGroup and
 * APIResourceList (k8s.io/apimachinery/pkg/apis/meta/v1/types.go) and apidiscovery.k8s.io/v2
 * APIGroupDiscoveryList (k8s.io/api/apidiscovery/v2/types.go). Optional fields are those Go marks omitempty.
 */

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** GET /api. kube serves it without apiVersion (the legacy group's unversioned codec). */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  /** "example.kapi.dev/v1". */
  groupVersion: string;
  version: string;
}

/** GET /apis/<group>, and each item of APIGroupList (where kind and apiVersion are left out). */
export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  /** Served versions, highest kube version priority first. */
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

/** GET /apis. */
export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIResource {
  /** The plural, or "<plural>/<subresource>". */
  name: string;
  /** Always present; "" for subresources. */
  singularName: string;
  namespaced: boolean;
  /** Set only where the response kind lives in another group-version (scale → autoscaling/v1). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** GET /api/v1 or /apis/<group>/<version>. /api/v1 has no apiVersion, as kube serves it. */
export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/** metav1.GroupVersionKind as JSON. */
export interface GroupVersionKindJSON {
  group: string;
  version: string;
  kind: string;
}

export type ResourceScope = 'Namespaced' | 'Cluster';
export type DiscoveryFreshness = 'Current' | 'Stale';

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind?: GroupVersionKindJSON;
  acceptedTypes?: GroupVersionKindJSON[];
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind?: GroupVersionKindJSON;
  scope: ResourceScope;
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness?: DiscoveryFreshness;
}

export interface APIGroupDiscovery {
  /** name is the group; left out for the core group. creationTimestamp is null, as Go's ObjectMeta writes it. */
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

/** GET /api or /apis with Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList. */
export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: 'apidiscovery.k8s.io/v2';
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

import type { APIResourceDiscovery, DiscoveryFreshness } from './types.ts';

/** kube's APIService priorities of one group-version (spec.groupPriorityMinimum and spec.versionPriority). */
export interface GroupVersionPriority {
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
}

/** A group-version another server serves (a remote APIService), as this server's discovery lists it. */
export interface ExternalGroupVersion {
  readonly group: string;
  readonly version: string;
  /** Its resources as last fetched from that server, in aggregated discovery's form; empty when never fetched. */
  readonly resources: readonly APIResourceDiscovery[];
  /** 'Stale' when the last fetch failed (kube's aggregator then keeps what it had, or nothing). */
  readonly freshness: DiscoveryFreshness;
}

/**
 * What kube-aggregator adds to the discovery of the server every request enters: group-versions served by remote
 * servers (listed in /apis, /apis/<group> and aggregated discovery alongside this chain's own; /apis/<g>/<v> itself
 * is the proxy's), and the APIService priorities that order every group and version (groupPriorityMinimum highest
 * first, then by name; versions by versionPriority, then kube's version order). `APIProvider.discovery` gives it.
 */
export interface ExternalDiscovery {
  /** Changes whenever the other methods would answer differently: the documents and their ETags are rebuilt. */
  generation(): number;
  groupVersions(): readonly ExternalGroupVersion[];
  /** The priorities of a group-version, local or external; undefined when it has none (it sorts as 0, 0). */
  priority(group: string, version: string): GroupVersionPriority | undefined;
}

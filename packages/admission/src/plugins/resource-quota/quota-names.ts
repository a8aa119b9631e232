/** A resource by group and plural name, as quota counts it. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/**
 * The names of the core kinds' object counts from before `count/*` (kube's ResourceConfigMaps, ResourceSecrets, …):
 * a quota may count them by either name, and both are charged.
 */
export const LEGACY_OBJECT_COUNT_NAMES: ReadonlySet<string> = new Set([
  'configmaps',
  'secrets',
  'services',
  'persistentvolumeclaims',
  'resourcequotas',
  'replicationcontrollers',
]);

/** kube's ObjectCountQuotaResourceNameFor: `count/<resource>` for the core group, `count/<resource>.<group>` otherwise. */
export function objectCountName(gr: GroupResource): string {
  return gr.group === '' ? `count/${gr.resource}` : `count/${gr.resource}.${gr.group}`;
}

/** Every name a quota may count objects of `gr` by: the `count/` name and, for the legacy core kinds, the plain one. */
export function objectCountNames(gr: GroupResource): string[] {
  const names = [objectCountName(gr)];
  if (gr.group === '' && LEGACY_OBJECT_COUNT_NAMES.has(gr.resource)) names.push(gr.resource);
  return names;
}

/** The resource a quota resource name counts objects of, or undefined (cpu, memory, pods, … are not object counts here). */
export function countedResource(name: string): GroupResource | undefined {
  if (LEGACY_OBJECT_COUNT_NAMES.has(name)) return { group: '', resource: name };
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  // kube's schema.ParseGroupResource: the group is all after the first dot.
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** The key a GenericAPIServer's store(…) takes: `plural` for the core group, `plural.group` otherwise. */
export function storeName(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

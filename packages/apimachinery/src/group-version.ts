/** A group and version, "" group being the legacy core group ("v1"). */
export interface GroupVersion {
  group: string;
  version: string;
}
export interface GroupKind {
  group: string;
  kind: string;
}
export interface GroupResource {
  group: string;
  resource: string;
}
export interface GroupVersionKind extends GroupVersion {
  kind: string;
}
export interface GroupVersionResource extends GroupVersion {
  resource: string;
}

/** Parses an apiVersion: "apps/v1" → {apps, v1}, "v1" → {"", v1}. Throws on more than one slash or an empty part. */
export function parseGroupVersion(apiVersion: string): GroupVersion {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] as string };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') {
    return { group: parts[0] as string, version: parts[1] as string };
  }
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/**
 * Go's schema.FromAPIVersionAndKind: the group and version of `apiVersion` as schema.ParseGroupVersion reads it ("" and
 * "/" are empty, no slash is a version, one slash splits even with an empty side, "a/b/c" does not parse and counts as
 * empty), with `kind` kept either way. A value that is not a string counts as "".
 */
export function groupVersionKindFromAPIVersion(apiVersion: unknown, kind: unknown): GroupVersionKind {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const k = typeof kind === 'string' ? kind : '';
  if (av === '' || av === '/') return { group: '', version: '', kind: k };
  const slash = av.indexOf('/');
  if (slash < 0) return { group: '', version: av, kind: k };
  if (av.indexOf('/', slash + 1) >= 0) return { group: '', version: '', kind: k };
  return { group: av.slice(0, slash), version: av.slice(slash + 1), kind: k };
}

/** Go's GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=Pod" for the core group, as kube's messages print it. */
export function formatGroupVersionKind(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** Go's FromAPIVersionAndKind(apiVersion, kind).String(): how kube's messages print an object's apiVersion and kind. */
export function formatAPIVersionKind(apiVersion: unknown, kind: unknown): string {
  return formatGroupVersionKind(groupVersionKindFromAPIVersion(apiVersion, kind));
}

/** "apps/v1", or "v1" for the core group. */
export function formatGroupVersion(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** "widgets.example.kapi.dev" → {resource: widgets, group: example.kapi.dev}; "pods" → core group. */
export function parseGroupResource(s: string): GroupResource {
  const dot = s.indexOf('.');
  if (dot < 0) return { group: '', resource: s };
  return { resource: s.slice(0, dot), group: s.slice(dot + 1) };
}

/** As kube-apiserver prints a resource in messages: "widgets.example.kapi.dev", or "pods" for core. */
export function formatGroupResource(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** "Widget.example.kapi.dev", or "Pod" for core: how Invalid errors name a kind. */
export function formatGroupKind(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

/** Splits an object's apiVersion and kind. */
export function groupVersionKindOf(obj: { apiVersion?: string; kind?: string }): GroupVersionKind {
  return { ...parseGroupVersion(obj.apiVersion ?? ''), kind: obj.kind ?? '' };
}

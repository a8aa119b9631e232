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

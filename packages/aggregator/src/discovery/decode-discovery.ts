import type { APIResource, APIVersionDiscovery } from '@kapi/server-core';
import { z } from 'zod';
import { decodeRemoteJSON } from '../remote/decode-remote-json.ts';

/**
 * A remote server's discovery documents decoded as kube's discovery manager decodes them into Go structs: a field of
 * the wrong type fails the whole document (the APIService is then listed Stale with what was fetched before), a
 * missing or null one is its zero value, unknown fields are dropped. What the server's own discovery then serves of
 * it is well typed, whatever the remote sent.
 */

const str = z
  .string()
  .nullish()
  .transform((v) => v ?? '');
const strings = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);
const optionalStrings = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? undefined);
const gvk = z.object({ group: str, version: str, kind: str }).nullish();

const subresource = z.object({
  subresource: str,
  responseKind: gvk,
  acceptedTypes: z.array(z.object({ group: str, version: str, kind: str })).nullish(),
  verbs: strings,
});

const resource = z.object({
  resource: str,
  responseKind: gvk,
  scope: str,
  singularResource: str,
  verbs: strings,
  shortNames: optionalStrings,
  categories: optionalStrings,
  subresources: z.array(subresource).nullish(),
});

const versionDiscovery = z.object({
  version: str,
  resources: z
    .array(resource)
    .nullish()
    .transform((v) => v ?? []),
});

const groupDiscoveryList = z.object({
  items: z.array(z.object({ metadata: z.object({ name: str }).nullish(), versions: z.array(versionDiscovery).nullish() })).nullish(),
});

const resourceList = z.object({
  resources: z
    .array(
      z.object({
        name: str,
        singularName: str,
        namespaced: z
          .boolean()
          .nullish()
          .transform((v) => v ?? false),
        group: z.string().nullish(),
        version: z.string().nullish(),
        kind: str,
        verbs: strings,
        shortNames: optionalStrings,
        categories: optionalStrings,
      }),
    )
    .nullish()
    .transform((v) => v ?? []),
});

/** Drops the keys whose value is undefined or null (Go's omitempty on what was not sent). */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;
}

/** An aggregated discovery document's (APIGroupDiscoveryList) versions by "group/version". */
export function decodeGroupDiscoveryList(body: Buffer): Map<string, APIVersionDiscovery> {
  const list = decodeRemoteJSON(groupDiscoveryList, body, 'APIGroupDiscoveryList');
  const versions = new Map<string, APIVersionDiscovery>();
  for (const g of list.items ?? [])
    for (const v of g.versions ?? [])
      versions.set(`${g.metadata?.name ?? ''}/${v.version}`, {
        version: v.version,
        resources: v.resources.map((r) =>
          compact({
            ...r,
            responseKind: r.responseKind ?? undefined,
            scope: r.scope as 'Namespaced' | 'Cluster',
            subresources: r.subresources?.map((s) =>
              compact({ ...s, responseKind: s.responseKind ?? undefined, acceptedTypes: s.acceptedTypes ?? undefined }),
            ),
          }),
        ),
      });
  return versions;
}

/** A legacy group-version document's (APIResourceList) resources. */
export function decodeResourceList(body: Buffer): APIResource[] {
  return decodeRemoteJSON(resourceList, body, 'APIResourceList').resources.map((r) => compact({ ...r }) as APIResource);
}

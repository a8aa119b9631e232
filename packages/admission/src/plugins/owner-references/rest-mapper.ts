import type { ResourceDefinition } from '@kapi/registry';

/** One resource a kind is served as, in one version (kube's meta.RESTMapping, what the plugins read of it). */
export interface RESTMapping {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

/**
 * kube's RESTMapper.RESTMappings: the resources a kind maps to in `version`; throws when there is none (kube's
 * NoKindMatchError). May be asynchronous (a discovery lookup).
 */
export type RESTMapper = (
  groupKind: { readonly group: string; readonly kind: string },
  version: string,
) => readonly RESTMapping[] | Promise<readonly RESTMapping[]>;

/** kube's NoKindMatchError text for one searched version. */
export function noKindMatchMessage(group: string, kind: string, version: string): string {
  return `no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(group ? `${group}/${version}` : version)}`;
}

/** A RESTMapper over served definitions (read at each call, so kinds served later are found). */
export function restMapperFor(
  definitions: () => readonly Pick<ResourceDefinition, 'group' | 'kind' | 'plural' | 'namespaced' | 'versions'>[],
): RESTMapper {
  return ({ group, kind }, version) => {
    const out: RESTMapping[] = [];
    for (const def of definitions())
      if (def.group === group && def.kind === kind && def.versions.some((v) => v.name === version && v.served))
        out.push({ group, version, resource: def.plural, namespaced: def.namespaced });
    if (out.length === 0) throw new Error(noKindMatchMessage(group, kind, version));
    return out;
  };
}

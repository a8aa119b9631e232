import type { KubeObject, LabelSelector } from '@kapi/apimachinery';

/** A policy's paramKind: `apiVersion` (`group/version`, or `v1`) and `kind`. */
export interface ParamKindRef {
  readonly apiVersion: string;
  readonly kind: string;
}

/**
 * Where a ValidatingAdmissionPolicy finds its params (kube's param informers through the REST mapper). In a server
 * it reads registry caches; in tests it is plain arrays (`paramsFromObjects`).
 */
export interface ParamSource {
  /** The named param object; namespace '' for a cluster-scoped kind. */
  get(kind: ParamKindRef, namespace: string, name: string): KubeObject | undefined;
  /** The objects of the kind in the namespace ('' for all of a cluster-scoped kind) the selector selects. */
  list(kind: ParamKindRef, namespace: string, selector: LabelSelector): readonly KubeObject[];
  /** Whether the kind is served (else the policy fails with kube's `failed to find resource referenced by paramKind`). */
  known(kind: ParamKindRef): boolean;
  /** Whether the kind is namespaced; assumed true (ConfigMap-like) when left out. */
  namespaced?(kind: ParamKindRef): boolean;
}

/**
 * A ParamSource over objects given by a function (read at every request): the kinds are those of the objects plus
 * `kinds`, namespaced unless listed in `clusterScoped` (`apiVersion/Kind` keys, e.g. `example.com/v1/Limits`).
 */
export function paramsFromObjects(
  objects: () => readonly KubeObject[],
  options: { readonly kinds?: readonly ParamKindRef[]; readonly clusterScoped?: readonly string[] } = {},
): ParamSource {
  const key = (k: ParamKindRef) => `${k.apiVersion}/${k.kind}`;
  const cluster = new Set(options.clusterScoped ?? []);
  const declared = new Set((options.kinds ?? []).map(key));
  const ofKind = (kind: ParamKindRef) => objects().filter((o) => o.apiVersion === kind.apiVersion && o.kind === kind.kind);
  const inNamespace = (o: KubeObject, namespace: string) => namespace === '' || (o.metadata.namespace ?? '') === namespace;
  return {
    get: (kind, namespace, name) => ofKind(kind).find((o) => o.metadata.name === name && (o.metadata.namespace ?? '') === namespace),
    list: (kind, namespace, selector) => ofKind(kind).filter((o) => inNamespace(o, namespace) && selector.matches(o.metadata.labels ?? {})),
    known: (kind) => declared.has(key(kind)) || ofKind(kind).length > 0,
    namespaced: (kind) => !cluster.has(key(kind)),
  };
}

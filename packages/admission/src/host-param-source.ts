import { type Clock, type KubeObject, parseGroupVersion } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/registry';
import type { ObjectCache } from './admissionregistration/object-cache.ts';
import { hostObjectCache, type StoreHost } from './host-object-cache.ts';
import type { ParamKindRef, ParamSource } from './policy/param-source.ts';

/** What the param source needs of the server: its kinds and their stores (AdmissionControlHost). */
export interface ParamHost extends StoreHost {
  definitions(): readonly ResourceDefinition[];
}

export interface HostParamSource extends ParamSource {
  /** Binds the source to the server's stores. */
  start(host: ParamHost): void;
  /** Lists and watches `kind` ahead of the first request that needs it (on a policy naming it as its paramKind). */
  prepare(kind: ParamKindRef): void;
  stop(): void;
}

/**
 * ValidatingAdmissionPolicy's params from the server's own kinds (kube's param informers through the REST mapper): one
 * in-memory copy per param kind, listed and watched from its store the first time a policy names the kind, kept
 * until the server stops. A kind not served is unknown (kube's "failed to find resource referenced by paramKind").
 */
export function hostParamSource(options: {
  signal: AbortSignal;
  clock?: Clock;
  onError: (err: unknown, what: string) => void;
}): HostParamSource {
  let host: ParamHost | undefined;
  const caches = new Map<string, ObjectCache<KubeObject>>();
  const definition = (kind: ParamKindRef): ResourceDefinition | undefined => {
    const gv = parseGroupVersion(kind.apiVersion);
    return host
      ?.definitions()
      .find((d) => d.group === gv.group && d.kind === kind.kind && d.versions.some((v) => v.name === gv.version && v.served));
  };
  const cacheOf = (kind: ParamKindRef): ObjectCache<KubeObject> | undefined => {
    const def = definition(kind);
    if (!def || !host) return undefined;
    const resource = def.group ? `${def.plural}.${def.group}` : def.plural;
    const key = `${kind.apiVersion}/${kind.kind}`;
    let cache = caches.get(key);
    if (!cache) {
      cache = hostObjectCache(host, resource, {
        signal: options.signal,
        clock: options.clock,
        onError: (err) => options.onError(err, `list and watch params ${resource}`),
      });
      if (!cache) return undefined;
      caches.set(key, cache);
    }
    return cache;
  };
  return {
    start: (h) => {
      host = h;
    },
    prepare: (kind) => void cacheOf(kind),
    stop: () => caches.clear(),
    // Objects come as the Store keeps them, in the kind's storage version (a param kind served in several versions
    // is not converted to the one paramKind names).
    get: (kind, namespace, name) => cacheOf(kind)?.get(namespace, name),
    list: (kind, namespace, selector) =>
      (cacheOf(kind)?.list() ?? []).filter(
        (o) => (namespace === '' || (o.metadata.namespace ?? '') === namespace) && selector.matches(o.metadata.labels ?? {}),
      ),
    known: (kind) => definition(kind) !== undefined,
    namespaced: (kind) => definition(kind)?.namespaced ?? true,
  };
}

import { isNotFound, type KubeObject } from '@kapi/apimachinery';
import type { ObjectGetter } from '@kapi/authn';
import type { Store } from '@kapi/registry';

/**
 * An authenticator's ObjectGetter over a Store: a read at resourceVersion "0" (the watch cache answers it from
 * memory, as kube's authenticators read their informers' listers), a consistent read when asked for a fresh one.
 * `store` is looked up per call, so the getter can be made before the server that owns the Store; no Store
 * (the kind is not served) reads as "not found".
 */
export function storeObjectGetter(store: () => Store | undefined): ObjectGetter {
  return async (namespace: string, name: string, options?: { fresh?: boolean }): Promise<KubeObject | null> => {
    const s = store();
    if (!s) return null;
    try {
      return await s.get(namespace ? { namespace } : {}, name, options?.fresh ? {} : { resourceVersion: '0' });
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  };
}

import type { Clock, KubeObject } from '@kapi/apimachinery';
import type { ListWatchSource } from '@kapi/registry';
import { ObjectCache } from './admissionregistration/object-cache.ts';

/** A server's stores by resource (AdmissionControlHost, ParamHost). */
export interface StoreHost {
  /** The store of `plural` (core group) or `plural.group`; undefined when not served. */
  store(resource: string): unknown;
}

/**
 * An ObjectCache listing and watching `resource` from `host`'s store, or undefined when the host does not serve it.
 * Failed lists and watches go to `onError` (they are retried).
 */
export function hostObjectCache<T extends KubeObject>(
  host: StoreHost,
  resource: string,
  options: { signal: AbortSignal; clock?: Clock | undefined; onError: (err: unknown) => void },
): ObjectCache<T> | undefined {
  const store = host.store(resource);
  if (!store) return undefined;
  return new ObjectCache<T>(store as ListWatchSource, {
    signal: options.signal,
    ...(options.clock ? { clock: options.clock } : {}),
    onError: options.onError,
  });
}

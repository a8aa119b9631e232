import type { Cacher } from '@kapi/watchcache';
import type { ResourceEndpoint } from '../endpoints/resource-handler.ts';

/**
 * One kind a GenericAPIServer serves through a Store: its endpoint, its watch cache, and what its removal needs — the
 * signal that ends its watch streams, and a count of its other requests under way, so that its cache stops only after
 * the last of them ends (as kube's CRD handler waits for a storage's requests before destroying it): a request that
 * was routed before the removal is answered from the storage it started with.
 */
export class InstalledResource {
  readonly endpoint: ResourceEndpoint;
  /** Its watch cache (none with `watchCache: false`). */
  readonly cacher: Cacher | undefined;
  readonly #removed = new AbortController();
  /** Resolved once removed and no request is under way. */
  #settle: () => void = () => {};
  readonly #settled = new Promise<void>((resolve) => {
    this.#settle = resolve;
  });
  #inFlight = 0;
  #closed: Promise<void> | undefined;

  /** `endpoint` is given the signal aborted on removal (ResourceEndpoint.removed). */
  constructor(endpoint: (removed: AbortSignal) => ResourceEndpoint, cacher: Cacher | undefined) {
    this.endpoint = endpoint(this.#removed.signal);
    this.cacher = cacher;
  }

  /** Runs one request (not a watch: removal ends those) and counts it as under way until it settles. */
  async serve(request: () => Promise<void>): Promise<void> {
    this.#inFlight++;
    try {
      await request();
    } finally {
      if (--this.#inFlight === 0 && this.#removed.signal.aborted) this.#settle();
    }
  }

  /** Ends the watch streams now; resolves once the requests under way settled and the cache stopped. */
  async remove(): Promise<void> {
    this.#removed.abort();
    if (this.#inFlight === 0) this.#settle();
    await this.#settled;
    await this.close();
  }

  /** Stops the cache now (idempotent). */
  close(): Promise<void> {
    this.#closed ??= this.cacher?.close() ?? Promise.resolve();
    return this.#closed;
  }
}

import { type Clock, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import { type ExternalOpenAPI, type ExternalSwagger, filterSwaggerByPathPrefixes } from '@kapi/server-core';
import type { APIService } from '../apiservice/types.ts';
import { availableCondition } from '../apiservice/validation.ts';
import { APIServiceControllerLoop } from '../controller/apiservice-controller-loop.ts';
import { remoteGet } from '../remote/remote-get.ts';
import type { RemoteTarget } from '../remote/remote-transport.ts';
import { decodeSwagger, decodeV3Index } from './decode-openapi.ts';

/** What the OpenAPI controller needs of the aggregator's RemoteTransport. */
export interface RemoteOpenAPITransport {
  target(apiService: APIService): RemoteTarget;
}

export interface RemoteOpenAPIOptions {
  /** Without one, nothing is fetched. */
  transport?: RemoteOpenAPITransport | undefined;
  clock?: Clock;
  /** How often every remote APIService's specs are fetched again; default kube's minute. */
  refreshMs?: number;
  onError?: (err: unknown) => void;
}

const REFRESH_MS = 60_000;
/** kube's specDownloadTimeout. */
const SPEC_DOWNLOAD_TIMEOUT_MS = 60_000;

/** One APIService's specs as last fetched, with the ETags sent back as If-None-Match. */
interface Specs {
  v2?: { spec: ExternalSwagger; etag?: string };
  v3?: { bytes: Buffer; url: string };
}

/**
 * kube-aggregator's OpenAPI v2 and v3 aggregation controllers for remote APIServices, as an ExternalOpenAPI for the
 * server every request enters: each Available remote APIService's /openapi/v2 (merged in the APIServices' priority
 * order) and its group-version's /openapi/v3 document (found through the remote's /openapi/v3 index), fetched as
 * `system:kube-aggregator` when the APIService changes and every minute. A failed fetch keeps what was fetched before,
 * as kube does; an APIService deleted or made local drops its specs.
 */
export class RemoteOpenAPI implements ExternalOpenAPI {
  readonly #transport: RemoteOpenAPITransport | undefined;
  readonly #loop: APIServiceControllerLoop;
  /** By APIService name. */
  readonly #specs = new Map<string, Specs>();
  #generation = 0;

  constructor(options: RemoteOpenAPIOptions = {}) {
    this.#transport = options.transport;
    // kube: the default controller rate limiter (5 ms doubling to 1000 s); the minute's refresh comes anyway.
    this.#loop = new APIServiceControllerLoop({
      sync: (name) => this.#sync(name),
      clock: options.clock ?? realClock,
      onError: options.onError ?? (() => {}),
      resyncRemoteMs: options.refreshMs ?? REFRESH_MS,
      onChange: (name, present) => {
        if (!present && this.#specs.delete(name)) this.#generation++;
      },
    });
  }

  generation(): number {
    return this.#generation;
  }

  v2Specs(): readonly ExternalSwagger[] {
    // kube merges in SortedByGroupAndVersion's order: groupPriorityMinimum highest first, then name.
    const names = [...this.#specs.keys()].sort((a, b) => {
      const pa = this.#loop.current.get(a)?.spec?.groupPriorityMinimum ?? 0;
      const pb = this.#loop.current.get(b)?.spec?.groupPriorityMinimum ?? 0;
      return pb - pa || (a < b ? -1 : a > b ? 1 : 0);
    });
    return names.flatMap((n) => {
      const v2 = this.#specs.get(n)?.v2;
      return v2 ? [v2.spec] : [];
    });
  }

  v3Documents(): ReadonlyMap<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (const [name, specs] of this.#specs) {
      const spec = this.#loop.current.get(name)?.spec;
      if (specs.v3 && spec) out.set(`apis/${spec.group ?? ''}/${spec.version ?? ''}`, specs.v3.bytes);
    }
    return out;
  }

  /** Starts the informer over `apiServices`, the fetches and the refresh; resolves once the first list is in. */
  start(apiServices: Store<APIService>): Promise<void> {
    return this.#loop.start(apiServices);
  }

  stop(): void {
    this.#loop.stop();
  }

  async #sync(name: string): Promise<void> {
    const apiService = this.#loop.current.get(name);
    if (!apiService?.spec?.service) {
      if (this.#specs.delete(name)) this.#generation++;
      return;
    }
    // kube fetches through its proxy, which answers 503 for an APIService that is not Available: what was fetched stays.
    if (!this.#transport || availableCondition(apiService)?.status !== 'True') return;
    const target = this.#transport.target(apiService);
    const had = this.#specs.get(name) ?? {};
    const next: Specs = { ...had };
    // kube's OpenAPI downloaders ask as `system:aggregator` (no groups) and give each download a minute.
    const headers = { 'X-Remote-User': 'system:aggregator', Accept: 'application/json' };
    const get = (url: URL, extra: Record<string, string> = {}) =>
      remoteGet(url, target.agent, { ...headers, ...extra }, { timeoutMs: SPEC_DOWNLOAD_TIMEOUT_MS });
    const errors: unknown[] = [];

    try {
      const v2 = await get(new URL('/openapi/v2', target.url), had.v2?.etag ? { 'If-None-Match': had.v2.etag } : {});
      // Only the APIService's own group-version of it is merged, as kube filters it.
      const prefix = `/apis/${apiService.spec.group ?? ''}/${apiService.spec.version ?? ''}/`;
      if (v2.status === 200)
        next.v2 = { spec: filterSwaggerByPathPrefixes(decodeSwagger(v2.body), [prefix]), ...(v2.etag ? { etag: v2.etag } : {}) };
      else if (v2.status !== 304) throw new Error(`failed to download /openapi/v2: ${v2.status}`);
    } catch (err) {
      errors.push(err);
    }

    try {
      const index = await get(new URL('/openapi/v3', target.url));
      if (index.status !== 200) throw new Error(`failed to download /openapi/v3: ${index.status}`);
      const key = `apis/${apiService.spec.group ?? ''}/${apiService.spec.version ?? ''}`;
      const url = decodeV3Index(index.body).get(key);
      if (!url) {
        delete next.v3;
      } else if (url !== had.v3?.url) {
        // The URL carries the document's hash: a new one means a new document.
        // kube asks its proxy for the URL's path and query: always of this APIService's server, whatever host it names.
        const at = new URL(url, target.url);
        const doc = await get(new URL(`${at.pathname}${at.search}`, target.url));
        if (doc.status !== 200) throw new Error(`failed to download ${url}: ${doc.status}`);
        next.v3 = { bytes: doc.body, url };
      }
    } catch (err) {
      errors.push(err);
    }

    if (!sameSpecs(had, next)) {
      this.#specs.set(name, next);
      this.#generation++;
    }
    if (errors.length > 0) throw errors[0];
  }
}

const sameSpecs = (a: Specs, b: Specs): boolean => a.v2?.spec === b.v2?.spec && a.v3?.url === b.v3?.url && a.v3?.bytes === b.v3?.bytes;

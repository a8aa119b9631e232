import { type Clock, realClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import { auditIDOf, type Filter, proxyRequest, type RequestContext, writeProxyError } from '@kapi/server-core';
import type { APIService } from '../apiservice/types.ts';
import { availableCondition } from '../apiservice/validation.ts';
import { runAPIServiceInformer } from '../controller/apiservice-informer.ts';
import { type RemoteTransport, RemoteTransportError } from '../remote/remote-transport.ts';
import { goQueryEncode, setAuthProxyHeaders } from './auth-proxy-headers.ts';

export interface APIServiceProxyOptions {
  /** How remote APIServices are dialled; without it every remote APIService answers 503. */
  transport: RemoteTransport | undefined;
  onError?: (err: unknown) => void;
  clock?: Clock;
  /** A remote's redirect becomes 502 (kube-apiserver's --aggregator-reject-forwarding-redirect). Default true, as kube. */
  rejectForwardingRedirects?: boolean;
}

/** kube's NewRequestForProxy: a discovery request (`/apis/<g>/<v>`) to an aggregated server gets 5 s. */
const DISCOVERY_TIMEOUT_MS = 5_000;

/**
 * kube-aggregator's proxyHandler as an APIProvider route: every path under `/apis/<group>/<version>` whose APIService
 * (`<version>.<group>`) is remote goes to its Service — as the authenticated user in X-Remote-* headers, over TLS
 * with the proxy client certificate, watches streaming and upgrades passed through — or, while the APIService is not
 * Available, is answered `503 service unavailable`. Local APIServices and other paths go on to `next()`. The
 * APIServices are kept from an informer (kube's APIServiceRegistrationController).
 */
export class APIServiceProxy {
  readonly #transport: RemoteTransport | undefined;
  readonly #onError: (err: unknown) => void;
  readonly #clock: Clock;
  readonly #rejectRedirects: boolean;
  /** APIServices by name, from the informer. */
  readonly #apiServices = new Map<string, APIService>();
  #abort: AbortController | undefined;

  constructor(options: APIServiceProxyOptions) {
    this.#transport = options.transport;
    this.#onError = options.onError ?? (() => {});
    this.#clock = options.clock ?? realClock;
    this.#rejectRedirects = options.rejectForwardingRedirects ?? true;
  }

  /** Follows the APIServices of `store`; resolves once the first list is in. */
  start(store: Store<APIService>): Promise<void> {
    this.#abort = new AbortController();
    return runAPIServiceInformer(store, this.#apiServices, {
      signal: this.#abort.signal,
      clock: this.#clock,
      onError: this.#onError,
      onChange: (name, present) => {
        if (!present) this.#transport?.forget(name);
      },
    });
  }

  stop(): void {
    this.#abort?.abort();
  }

  /** The route (APIProvider.routes). */
  readonly route: Filter = (ctx, next) => {
    const remote = this.#remoteFor(ctx.url.pathname);
    return remote ? this.#proxy(ctx, remote) : next();
  };

  /** The remote APIService serving `path`, if any: `/apis/<group>/<version>` and everything beneath it. */
  #remoteFor(path: string): APIService | undefined {
    if (this.#apiServices.size === 0 || !path.startsWith('/apis/')) return undefined;
    const groupEnd = path.indexOf('/', 6);
    if (groupEnd < 0) return undefined;
    const versionEnd = path.indexOf('/', groupEnd + 1);
    const group = path.slice(6, groupEnd);
    const version = path.slice(groupEnd + 1, versionEnd < 0 ? undefined : versionEnd);
    if (!group || !version) return undefined;
    const apiService = this.#apiServices.get(`${version}.${group}`);
    return apiService?.spec?.service ? apiService : undefined;
  }

  async #proxy(ctx: RequestContext, apiService: APIService): Promise<void> {
    if (availableCondition(apiService)?.status !== 'True' || !this.#transport) {
      writeProxyError(ctx.res, 'service unavailable', 503);
      return;
    }
    const user = ctx.user;
    if (!user) {
      writeProxyError(ctx.res, 'missing user', 500);
      return;
    }
    let target: ReturnType<RemoteTransport['target']>;
    try {
      target = this.#transport.target(apiService);
    } catch (err) {
      // kube answers a transport it could not build with its error; a resolver's error is logged, and the client told
      // the service is unavailable.
      if (err instanceof RemoteTransportError) {
        writeProxyError(ctx.res, err.message, 500);
        return;
      }
      this.#onError(err);
      writeProxyError(ctx.res, 'service unavailable', 503);
      return;
    }
    const url = new URL(ctx.url.pathname, target.url);
    const query = goQueryEncode(ctx.url.searchParams);
    if (query) url.search = `?${query}`;
    const info = ctx.requestInfo;
    const discovery = info !== undefined && !info.isResourceRequest && ctx.url.pathname.replace(/^\/+|\/+$/g, '').split('/').length === 3;
    const auditID = auditIDOf(ctx);
    await proxyRequest(
      ctx,
      { url, agent: target.agent },
      {
        headers: (headers) => {
          setAuthProxyHeaders(headers, user);
          // The remote audits the request under the same ID (kube's NewRequestForProxy).
          if (auditID) headers['audit-id'] = auditID;
        },
        // kube's rewriting transport sees the location as the request's URL: the remote's host, https, the path.
        forwarded: { uri: url.pathname, host: url.host, proto: 'https' },
        rejectForwardingRedirects: this.#rejectRedirects,
        ...(discovery ? { timeoutMs: DISCOVERY_TIMEOUT_MS } : {}),
      },
    );
  }
}

import type { IncomingMessage } from 'node:http';
import { parseAccept } from '../endpoints/negotiation.ts';
import { pathNotFound, writeJSON } from '../endpoints/response.ts';
import type { Filter, RequestContext } from '../filters/context.ts';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  type DiscoverySource,
  discoveryETag,
} from './documents.ts';
import type { ExternalDiscovery } from './external.ts';

/** The Accept that asks for aggregated discovery, and the Content-Type that tells a client it got it. */
const AGGREGATED_VERSIONS = ['v2', 'v2beta1'] as const;
type AggregatedVersion = (typeof AGGREGATED_VERSIONS)[number];

/** Which aggregated discovery version the Accept header prefers, or undefined for the legacy documents. */
export function aggregatedDiscoveryVersion(req: IncomingMessage): AggregatedVersion | undefined {
  for (const r of parseAccept(req.headers.accept)) {
    if (r.type === 'application' && (r.subtype === 'json' || r.subtype === '*') && r.params.get('as') === 'APIGroupDiscoveryList') {
      const v = r.params.get('v');
      if (r.params.get('g') === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1')) return v;
      continue;
    }
    // A plain json (or */*) clause before any aggregated one: the client prefers the legacy documents.
    if (r.params.size === 0 && ((r.type === 'application' && r.subtype === 'json') || r.type === '*')) return undefined;
  }
  return undefined;
}

export interface DiscoveryHandlerOptions {
  /** The address clients reach this server at, for APIVersions.serverAddressByClientCIDRs. Default from the Host header. */
  serverAddress?: string;
  /** For a source that changes in place: documents are rebuilt when this changes (or the source is another object). */
  generation?: () => number;
  /**
   * Group-versions other servers serve and the priorities ordering the documents (kube-aggregator's remote
   * APIServices); the documents are rebuilt when its generation changes.
   */
  external?: ExternalDiscovery | undefined;
}

interface Cached {
  source: DiscoverySource;
  generation: number | undefined;
  externalGeneration: number | undefined;
  docs: Map<string, { body: Buffer; etag: string } | null>;
}

/**
 * Serves discovery: /api (APIVersions), /api/v1, /apis (APIGroupList), /apis/<g> (APIGroup), /apis/<g>/<v>
 * (APIResourceList), and aggregated discovery v2 (and v2beta1, which kubectl ≤ 1.29 asks for) on /api and /apis
 * when the Accept header asks for `as=APIGroupDiscoveryList`. Every document is built and encoded once per
 * source (and `generation`), carries an ETag, and answers a matching If-None-Match with 304.
 */
export function discoveryHandler(getSource: () => DiscoverySource, options: DiscoveryHandlerOptions = {}): Filter {
  let cache: Cached | undefined;
  const external = options.external;
  const docFor = (key: string, build: (source: DiscoverySource) => unknown): { body: Buffer; etag: string } | null => {
    const source = getSource();
    const gen = options.generation?.();
    const externalGen = external?.generation();
    if (!cache || cache.source !== source || cache.generation !== gen || cache.externalGeneration !== externalGen)
      cache = { source, generation: gen, externalGeneration: externalGen, docs: new Map() };
    let hit = cache.docs.get(key);
    if (hit === undefined) {
      const doc = build(source);
      hit = doc === undefined ? null : { body: Buffer.from(JSON.stringify(doc)), etag: `"${discoveryETag(doc)}"` };
      cache.docs.set(key, hit);
    }
    return hit;
  };

  return async (ctx, next) => {
    // Resource requests (the bulk of the traffic) are never discovery documents.
    if (ctx.requestInfo?.isResourceRequest) return next();
    const path = ctx.url.pathname.replace(/\/+$/, '') || '/';
    if (!(path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/'))) return next();
    const parts = path.split('/').filter(Boolean);
    const method = ctx.req.method ?? 'GET';
    const isDiscoveryPath = (parts[0] === 'api' && parts.length <= 2) || (parts[0] === 'apis' && parts.length <= 3);
    if (!isDiscoveryPath) return next();
    if (method !== 'GET' && method !== 'HEAD') return next();

    const aggregated = parts.length === 1 ? aggregatedDiscoveryVersion(ctx.req) : undefined;
    if (aggregated) {
      const legacy = parts[0] === 'api';
      const doc = docFor(`agg:${aggregated}:${legacy}`, (s) => {
        const list = aggregatedDiscovery(s, { legacy, external });
        return aggregated === 'v2' ? list : { ...list, apiVersion: 'apidiscovery.k8s.io/v2beta1' };
      });
      return send(ctx, doc, `application/json;g=apidiscovery.k8s.io;v=${aggregated};as=APIGroupDiscoveryList`);
    }

    if (parts[0] === 'api') {
      if (parts.length === 1) {
        const address = options.serverAddress ?? hostOf(ctx);
        return send(
          ctx,
          docFor(`api:${address}`, () => apiVersions(address)),
          'application/json',
        );
      }
      const doc = docFor(`gv:${parts[1]}`, (s) => apiResourceList(s, parts[1] as string));
      if (!doc) throw pathNotFound();
      return send(ctx, doc, 'application/json');
    }
    if (parts.length === 1)
      return send(
        ctx,
        docFor('apis', (s) => apiGroupList(s, external)),
        'application/json',
      );
    if (parts.length === 2) {
      const doc = docFor(`g:${parts[1]}`, (s) => apiGroup(s, parts[1] as string, external));
      if (!doc) throw pathNotFound();
      return send(ctx, doc, 'application/json');
    }
    const doc = docFor(`gv:${parts[1]}/${parts[2]}`, (s) => apiResourceList(s, `${parts[1]}/${parts[2]}`));
    if (!doc) throw pathNotFound();
    return send(ctx, doc, 'application/json');
  };
}

function hostOf(ctx: RequestContext): string {
  const host = ctx.req.headers[':authority'] ?? ctx.req.headers.host ?? '';
  return typeof host === 'string' ? host : '';
}

function send(ctx: RequestContext, doc: { body: Buffer; etag: string } | null, contentType: string): void {
  if (!doc) throw pathNotFound();
  const res = ctx.res;
  res.setHeader('Vary', 'Accept');
  res.setHeader('ETag', doc.etag);
  if (ctx.req.headers['if-none-match'] === doc.etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  writeJSON(ctx, 200, doc.body, contentType);
}

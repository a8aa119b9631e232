import { StatusError } from '@kapi/apimachinery';
import { type DiscoverySource, definitionsOf } from '../discovery/documents.ts';
import type { Filter, RequestContext } from '../filters/context.ts';
import { writeStatus } from '../filters/write-status.ts';
import type { ExternalOpenAPI } from './external.ts';
import { negotiate } from './negotiate.ts';
import { OpenAPIDocuments, type ServedDocument, serverRelativeURL } from './served-documents.ts';
import type { OpenAPIInfo } from './v3-document.ts';

export const MIME_JSON = 'application/json';
/** What client-go sends for the v2 document in protobuf. */
export const MIME_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** The newer spelling kube-openapi also accepts, and the Content-Type it answers with. */
export const MIME_V2_PROTOBUF_DOTTED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

const V2_OFFERS = [MIME_JSON, MIME_V2_PROTOBUF, MIME_V2_PROTOBUF_DOTTED] as const;
const V3_OFFERS = [MIME_JSON] as const;

export interface OpenAPIHandlerOptions {
  /**
   * A number that changes whenever the served kinds do; documents are rebuilt when it (or the source's identity)
   * changes. Without it a Scheme or array is assumed to change only by growing, and its length is compared.
   */
  generation?: () => number;
  /** The documents' info block; default `{ title: 'Kubernetes', version: 'v0.1.0' }`. */
  info?: OpenAPIInfo;
  /** Clock for Last-Modified and the one-year Expires of hashed v3 URLs. */
  now?: () => Date;
  /** Other servers' specs merged in (kube-aggregator's remote APIServices); rebuilt when its generation changes. */
  external?: ExternalOpenAPI | undefined;
}

const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

function notFound(): StatusError {
  return new StatusError({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });
}

/** Whether If-None-Match names `etag` (quoted, possibly weak, possibly in a list, or `*`). */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === `"${etag}"`;
  });
}

/**
 * Answers with a document's bytes as Go's http.ServeContent does for kube-openapi: ETag (quoted), Last-Modified,
 * 304 for a matching If-None-Match, no body for HEAD.
 */
function serve(ctx: RequestContext, doc: ServedDocument, body: Buffer, contentType: string): void {
  const { req, res } = ctx;
  res.setHeader('ETag', `"${doc.etag}"`);
  res.setHeader('Last-Modified', doc.lastModified.toUTCString());
  if (matchesIfNoneMatch(req.headers['if-none-match'], doc.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}

function notAcceptable(ctx: RequestContext, offers: readonly string[]): void {
  writeStatus(
    ctx.res,
    new StatusError({
      code: 406,
      reason: 'NotAcceptable',
      message: `only the following media types are accepted: ${offers.join(', ')}`,
      details: {},
    }),
  );
}

/**
 * Serves GET/HEAD /openapi/v2 (Swagger 2.0 as JSON or gnostic protobuf), /openapi/v3 (the index) and
 * /openapi/v3/<api/v1 | apis/group/version> (OpenAPI v3 JSON), built from the kinds `getSource` returns. Documents
 * are built once per state of the source (see `generation`), on the first request after a change; a group-version
 * whose kinds did not change keeps its document. A `?hash=` equal to the document's ETag answers with
 * `Cache-Control: public, immutable` and a one-year Expires; a stale one is a 301 to the current URL, as kube-openapi's
 * handler3. Other paths go to `next`.
 *
 * @example
 * const handler = compose([openAPIHandler(() => scheme)], notFoundHandler);
 */
export function openAPIHandler(getSource: () => DiscoverySource, options: OpenAPIHandlerOptions = {}): Filter {
  let cached: { source: DiscoverySource; stamp: number; externalStamp: number | undefined; docs: OpenAPIDocuments } | undefined;
  const stampOf = (source: DiscoverySource): number => (options.generation ? options.generation() : definitionsOf(source).length);
  const external = options.external;
  const documents = (): OpenAPIDocuments => {
    const source = getSource();
    const stamp = stampOf(source);
    const externalStamp = external?.generation();
    if (!cached || cached.source !== source || cached.stamp !== stamp || cached.externalStamp !== externalStamp) {
      cached = {
        source,
        stamp,
        externalStamp,
        docs: new OpenAPIDocuments(source, {
          ...(external ? { external } : {}),
          ...(options.info ? { info: options.info } : {}),
          ...(options.now ? { now: options.now } : {}),
          ...(cached ? { previous: cached.docs } : {}),
        }),
      };
    }
    return cached.docs;
  };
  const now = options.now ?? (() => new Date());

  return async (ctx, next) => {
    const path = ctx.url.pathname;
    if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return next();
    const method = ctx.req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      writeStatus(
        ctx.res,
        new StatusError({ code: 405, reason: 'MethodNotAllowed', message: `${method} is not supported on ${path}`, details: {} }),
      );
      return;
    }
    const accept = ctx.req.headers.accept;
    const docs = documents();
    ctx.res.setHeader('Vary', 'Accept');

    if (path === '/openapi/v2') {
      const type = negotiate(accept, V2_OFFERS);
      if (!type) return notAcceptable(ctx, V2_OFFERS);
      const v2 = docs.v2;
      if (type === MIME_JSON) return serve(ctx, v2, v2.json, MIME_JSON);
      return serve(ctx, v2, v2.protobuf(), MIME_V2_PROTOBUF_DOTTED);
    }
    if (path === '/openapi/v3') {
      const type = negotiate(accept, V3_OFFERS);
      if (!type) return notAcceptable(ctx, V3_OFFERS);
      return serve(ctx, docs.index, docs.index.json, MIME_JSON);
    }
    const gvPath = path.slice('/openapi/v3/'.length);
    const doc = docs.v3.get(gvPath);
    if (!doc) {
      writeStatus(ctx.res, notFound());
      return;
    }
    const type = negotiate(accept, V3_OFFERS);
    if (!type) return notAcceptable(ctx, V3_OFFERS);
    const hash = ctx.url.searchParams.get('hash');
    if (hash) {
      if (hash !== doc.etag) {
        const location = serverRelativeURL(gvPath, doc.etag);
        ctx.res.statusCode = 301;
        ctx.res.setHeader('Location', location);
        ctx.res.setHeader('Content-Type', 'text/html; charset=utf-8');
        ctx.res.end(method === 'HEAD' ? undefined : `<a href="${location}">Moved Permanently</a>.\n`);
        return;
      }
      ctx.res.setHeader('Cache-Control', 'public, immutable');
      ctx.res.setHeader('Expires', new Date(now().getTime() + ONE_YEAR_MS).toUTCString());
    }
    return serve(ctx, doc, doc.json, MIME_JSON);
  };
}

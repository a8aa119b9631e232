import type { Filter } from './context.ts';

export interface CorsOptions {
  /** Origins allowed, as regexes (strings are compiled); matching is unanchored, as kube's regexp.MatchString. */
  allowedOrigins: readonly (string | RegExp)[];
  allowedMethods?: readonly string[];
  allowedHeaders?: readonly string[];
  exposedHeaders?: readonly string[];
  allowCredentials?: boolean;
}

// kube's defaults (server/config.go / filters/cors.go).
const DEFAULT_METHODS = ['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'];
const DEFAULT_HEADERS = [
  'Content-Type',
  'Content-Length',
  'Accept-Encoding',
  'X-CSRF-Token',
  'Authorization',
  'X-Requested-With',
  'If-Modified-Since',
];
const DEFAULT_EXPOSED = ['Date'];

/**
 * Adds CORS headers for an allowed Origin and answers its preflight OPTIONS with 204. Requests
 * without an Origin, or from an origin not allowed, pass through untouched (the browser then refuses).
 */
export function withCors(opts: CorsOptions): Filter {
  const patterns = opts.allowedOrigins.map((p) => (typeof p === 'string' ? new RegExp(p) : p));
  const methods = (opts.allowedMethods ?? DEFAULT_METHODS).join(', ');
  const headers = (opts.allowedHeaders ?? DEFAULT_HEADERS).join(', ');
  const exposed = (opts.exposedHeaders ?? DEFAULT_EXPOSED).join(', ');
  const credentials = String(opts.allowCredentials ?? true);
  return async (ctx, next) => {
    const origin = ctx.req.headers.origin;
    if (!origin || !patterns.some((re) => matches(re, origin))) return next();
    const res = ctx.res;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', methods);
    res.setHeader('Access-Control-Allow-Headers', headers);
    res.setHeader('Access-Control-Expose-Headers', exposed);
    res.setHeader('Access-Control-Allow-Credentials', credentials);
    if (ctx.req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return;
    }
    await next();
  };
}

/** A global/sticky regex's lastIndex would make test() stateful across requests; reset it first. */
function matches(re: RegExp, s: string): boolean {
  re.lastIndex = 0;
  return re.test(s);
}

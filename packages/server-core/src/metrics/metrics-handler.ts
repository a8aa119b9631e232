import type { Filter } from '../filters/context.ts';
import type { APIServerMetrics } from './apiserver-metrics.ts';

/**
 * Serves GET (and HEAD) /metrics in the Prometheus text format from the server's own registry. A Filter:
 * other paths and methods go to `next`.
 */
export function metricsHandler(metrics: APIServerMetrics, path = '/metrics'): Filter {
  return async (ctx, next) => {
    const method = ctx.req.method ?? 'GET';
    if (ctx.url.pathname !== path || (method !== 'GET' && method !== 'HEAD')) return next();
    const body = await metrics.scrape();
    ctx.res.statusCode = 200;
    ctx.res.setHeader('Content-Type', metrics.contentType);
    ctx.res.setHeader('Content-Length', Buffer.byteLength(body));
    ctx.res.end(method === 'HEAD' ? undefined : body);
  };
}

import type { Filter, RequestContext } from '../filters/context.ts';
import type { APIServerMetrics, LongRunningMetricLabels, RequestMetricLabels } from './apiserver-metrics.ts';
import { APISERVER_COMPONENT, cleanDryRun, cleanScope, reportedVerb } from './labels.ts';

export interface WithMetricsOptions {
  /** Milliseconds from an arbitrary origin; default `performance.now`. Injected by tests. */
  now?: () => number;
  /**
   * Whether a non-resource request (healthz, version, discovery, …) is recorded, labelled as kube's
   * InstrumentHandlerFunc does (subresource = path). Default: all but 404s, so unknown paths cannot grow
   * the series without bound (kube never instruments its not-found handler).
   */
  recordNonResource?: (path: string, code: number) => boolean;
}

/**
 * The labels kube's MonitorRequest would give this request. Resource requests carry group, version,
 * resource, subresource, scope and component "apiserver"; a non-resource request carries only its path
 * (in `subresource`, as kube's healthz instrumentation does) and empty scope and component.
 */
export function requestMetricLabels(ctx: RequestContext): RequestMetricLabels {
  const info = ctx.requestInfo;
  const verb = reportedVerb(
    {
      method: ctx.req.method ?? 'GET',
      query: ctx.url.searchParams,
      contentType: headerValue(ctx.req.headers['content-type']),
    },
    info,
    info?.verb === 'watch' ? 'WATCH' : '',
  );
  const dryRun = cleanDryRun(ctx.url.search.slice(1), ctx.url.searchParams);
  if (info?.isResourceRequest) {
    return {
      verb,
      dry_run: dryRun,
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      scope: cleanScope(info),
      component: APISERVER_COMPONENT,
    };
  }
  return {
    verb,
    dry_run: dryRun,
    group: '',
    version: '',
    resource: '',
    subresource: info?.path ?? ctx.url.pathname,
    scope: '',
    component: '',
  };
}

/**
 * Measures every request into apiserver_request_total and apiserver_request_duration_seconds once its
 * response finishes (or the connection closes first), with the status code then on the response. Put it
 * after request info and the long-running check. As in kube, where the route instrumentation wraps the whole
 * handler, a WATCH is observed when it ends, so its duration is the watch's lifetime (dashboards filter
 * `verb!~"WATCH|CONNECT"`); while open, a long-running request is counted in apiserver_longrunning_requests.
 */
export function withMetrics(metrics: APIServerMetrics, options: WithMetricsOptions = {}): Filter {
  const now = options.now ?? (() => performance.now());
  const recordNonResource = options.recordNonResource ?? ((_path: string, code: number) => code !== 404);
  return async (ctx, next) => {
    const start = now();
    const res = ctx.res;
    let endLongRunning: (() => void) | undefined;
    if (ctx.longRunning) {
      const { dry_run: _dryRun, ...labels } = requestMetricLabels(ctx);
      endLongRunning = metrics.longRunningStarted(labels satisfies LongRunningMetricLabels);
    }
    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      res.off('finish', record);
      res.off('close', record);
      endLongRunning?.();
      const labels = requestMetricLabels(ctx);
      const code = res.statusCode;
      if (!ctx.requestInfo?.isResourceRequest && !recordNonResource(labels.subresource, code)) return;
      metrics.observeRequest(labels, code, Math.max(0, now() - start) / 1000);
    };
    res.on('finish', record);
    res.on('close', record);
    await next();
  };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

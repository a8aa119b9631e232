import { afterEach, describe, expect, it } from 'vitest';
import { compose } from '../filters/compose.ts';
import type { Filter } from '../filters/context.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { RequestInfoResolver } from '../request-info.ts';
import { APIServerMetrics } from './apiserver-metrics.ts';
import { metricsHandler } from './metrics-handler.ts';
import { withMetrics } from './with-metrics.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const resolver = new RequestInfoResolver();
const withInfo: Filter = async (ctx, next) => {
  ctx.requestInfo = resolver.resolve(ctx.req.method ?? 'GET', ctx.req.url ?? '/');
  ctx.longRunning = ctx.requestInfo.verb === 'watch';
  await next();
};

/** Parses the text exposition into `name{labels} value` lines keyed by name. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] as string] = l[2] as string;
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}

describe('withMetrics + metricsHandler', () => {
  it('counts requests with kube labels and serves them at /metrics', async () => {
    let clock = 0;
    const metrics = new APIServerMetrics({
      inflight: () => ({ readOnly: 3, mutating: 1 }),
      storageObjects: async () =>
        new Map([
          ['pods', 2],
          ['deployments.apps', 5],
        ]),
    });
    const gates: Array<() => void> = [];
    srv = await listen(
      compose([withInfo, withMetrics(metrics, { now: () => clock }), metricsHandler(metrics)], async (ctx) => {
        const info = ctx.requestInfo;
        if (info?.verb === 'watch') {
          metrics.watchStarted({ group: '', version: 'v1', kind: 'Pod' });
          ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
          ctx.res.write('{"type":"ADDED","object":{}}\n');
          await new Promise<void>((r) => gates.push(r));
          metrics.watchEnded({ group: '', version: 'v1', kind: 'Pod' });
          ctx.res.end();
          return;
        }
        clock += 250;
        if (info?.verb === 'get' && info.name === 'missing') {
          ctx.res.statusCode = 404;
          ctx.res.end();
          return;
        }
        if (ctx.url.pathname === '/nope') ctx.res.statusCode = 404;
        ctx.res.statusCode = ctx.req.method === 'POST' ? 201 : ctx.res.statusCode;
        ctx.res.end('{}');
      }),
    );
    const url = srv.url;
    expect((await fetch(`${url}/api/v1/namespaces/default/pods`)).status).toBe(200);
    expect((await fetch(`${url}/api/v1/namespaces/default/pods/missing`)).status).toBe(404);
    expect((await fetch(`${url}/apis/apps/v1/namespaces/ns/deployments?dryRun=All`, { method: 'POST', body: '{}' })).status).toBe(201);
    expect(
      (
        await fetch(`${url}/apis/apps/v1/namespaces/ns/deployments/d`, {
          method: 'PATCH',
          body: '{}',
          headers: { 'content-type': 'application/apply-patch+yaml' },
        })
      ).status,
    ).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    const watch = await fetch(`${url}/api/v1/pods?watch=true`);
    const reader = watch.body?.getReader();
    await reader?.read();

    const during = await (await fetch(`${url}/metrics`)).text();
    expect(samples(during, 'apiserver_longrunning_requests')).toEqual([
      {
        labels: { verb: 'WATCH', group: '', version: 'v1', resource: 'pods', subresource: '', scope: 'cluster', component: 'apiserver' },
        value: 1,
      },
    ]);
    expect(samples(during, 'apiserver_registered_watchers')).toEqual([{ labels: { group: '', version: 'v1', kind: 'Pod' }, value: 1 }]);

    gates[0]?.();
    while (!(await reader?.read())?.done) {}
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();

    const total = samples(text, 'apiserver_request_total');
    const base = { dry_run: '', group: '', version: 'v1', resource: 'pods', subresource: '', component: 'apiserver' };
    expect(total).toEqual(
      expect.arrayContaining([
        { labels: { ...base, verb: 'LIST', scope: 'namespace', code: '200' }, value: 1 },
        { labels: { ...base, verb: 'GET', scope: 'resource', code: '404' }, value: 1 },
        { labels: { ...base, verb: 'WATCH', scope: 'cluster', code: '200' }, value: 1 },
        {
          labels: {
            verb: 'POST',
            dry_run: 'All',
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            subresource: '',
            scope: 'resource',
            component: 'apiserver',
            code: '201',
          },
          value: 1,
        },
        {
          labels: {
            verb: 'APPLY',
            dry_run: '',
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            subresource: '',
            scope: 'resource',
            component: 'apiserver',
            code: '200',
          },
          value: 1,
        },
        {
          labels: {
            verb: 'GET',
            dry_run: '',
            group: '',
            version: '',
            resource: '',
            subresource: '/healthz',
            scope: '',
            component: '',
            code: '200',
          },
          value: 1,
        },
      ]),
    );
    // A 404 on an unknown non-resource path is not recorded.
    expect(total.some((s) => s.labels.subresource === '/nope')).toBe(false);
    // The first /metrics scrape is itself a request by the time of the second one.
    expect(total.some((s) => s.labels.subresource === '/metrics')).toBe(true);

    // Durations: every non-watch request took 250 ms of the injected clock; kube's buckets.
    const buckets = samples(text, 'apiserver_request_duration_seconds_bucket').filter(
      (s) => s.labels.verb === 'LIST' && s.labels.resource === 'pods',
    );
    expect(buckets.map((b) => b.labels.le)).toEqual([
      '0.005',
      '0.025',
      '0.05',
      '0.1',
      '0.2',
      '0.4',
      '0.6',
      '0.8',
      '1',
      '1.25',
      '1.5',
      '2',
      '3',
      '4',
      '5',
      '6',
      '8',
      '10',
      '15',
      '20',
      '30',
      '45',
      '60',
      '+Inf',
    ]);
    expect(buckets.find((b) => b.labels.le === '0.2')?.value).toBe(0);
    expect(buckets.find((b) => b.labels.le === '0.4')?.value).toBe(1);

    expect(samples(text, 'apiserver_current_inflight_requests')).toEqual([
      { labels: { request_kind: 'readOnly' }, value: 3 },
      { labels: { request_kind: 'mutating' }, value: 1 },
    ]);
    expect(samples(text, 'apiserver_storage_objects')).toEqual([
      { labels: { resource: 'pods' }, value: 2 },
      { labels: { resource: 'deployments.apps' }, value: 5 },
    ]);
    expect(samples(text, 'apiserver_longrunning_requests')[0]?.value).toBe(0);
    expect(samples(text, 'apiserver_registered_watchers')[0]?.value).toBe(0);
  });

  it('reports -1 for known resources when the storage count fails, and keeps its registry private', async () => {
    let fail = false;
    const metrics = new APIServerMetrics({
      storageObjects: () => {
        if (fail) throw new Error('etcd down');
        return new Map([['pods', 4]]);
      },
    });
    expect(samples(await metrics.scrape(), 'apiserver_storage_objects')).toEqual([{ labels: { resource: 'pods' }, value: 4 }]);
    fail = true;
    expect(samples(await metrics.scrape(), 'apiserver_storage_objects')).toEqual([{ labels: { resource: 'pods' }, value: -1 }]);
    // Two servers in one process do not collide on metric names.
    const other = new APIServerMetrics();
    expect(other.registry).not.toBe(metrics.registry);
  });

  it('passes other paths and methods through', async () => {
    const metrics = new APIServerMetrics();
    srv = await listen(
      compose([metricsHandler(metrics)], async (ctx) => {
        ctx.res.end('next');
      }),
    );
    expect(await (await fetch(`${srv.url}/metricsx`)).text()).toBe('next');
    expect(await (await fetch(`${srv.url}/metrics`, { method: 'POST' })).text()).toBe('next');
  });
});

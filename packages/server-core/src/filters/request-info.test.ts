import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import { withRequestInfo } from './request-info.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('withRequestInfo', () => {
  it('answers a path the resolver cannot read with a 400 Status, never a 500', async () => {
    srv = await listen(compose([withRequestInfo()], async (ctx) => void ctx.res.end(ctx.requestInfo?.verb)));
    for (const path of ['/api/v1/watch', '/apis/example.kapi.dev/v1/proxy']) {
      const r = await fetch(`${srv.url}${path}`, { method: 'PUT' });
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        code: 400,
        message: expect.stringMatching(/^failed to create RequestInfo: unable to determine kind and namespace from url, /),
      });
    }
    expect(await (await fetch(`${srv.url}/api/v1/watch/pods`)).text()).toBe('watch');
  });

  it('reads paths a URL parser would take for another host ("//x/y") as paths', async () => {
    srv = await listen(compose([withRequestInfo()], async (ctx) => void ctx.res.end(`${ctx.url.pathname} ${ctx.requestInfo?.path}`)));
    const { request } = await import('node:http');
    const url = new URL(srv.url);
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '//', method: 'GET' }, (res) => {
        let t = '';
        res.on('data', (d) => {
          t += d;
        });
        res.on('end', () => resolve(`${res.statusCode} ${t}`));
      });
      req.on('error', reject);
      req.end();
    });
    expect(text).toBe('200 // //');
  });
});

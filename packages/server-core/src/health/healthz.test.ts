import { afterEach, describe, expect, it } from 'vitest';
import { compose } from '../filters/compose.ts';
import { type Listening, listen } from '../filters/serve.ts';
import type { HealthCheck } from './healthz.ts';
import { type HealthEndpoint, healthHandler, namedHealthCheck, pingHealthCheck } from './healthz.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const bad = namedHealthCheck('bad', () => {
  throw new Error('this will fail');
});
const asyncBad = namedHealthCheck('slow-bad', async () => {
  await new Promise((r) => setTimeout(r, 5));
  throw new Error('async failure');
});
const good = namedHealthCheck('etcd', async () => {});

async function serve(endpoint: HealthEndpoint, checks: HealthCheck[]): Promise<string> {
  srv = await listen(
    compose([healthHandler(endpoint, checks)], async (ctx) => {
      ctx.res.statusCode = 404;
      ctx.res.end('fallthrough');
    }),
  );
  return srv.url;
}

async function get(url: string) {
  const r = await fetch(url);
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type'), nosniff: r.headers.get('x-content-type-options') };
}

describe.each(['healthz', 'livez', 'readyz'] as const)('healthHandler(%s)', (ep) => {
  it('answers ok when all pass', async () => {
    const url = await serve(ep, [good]);
    expect(await get(`${url}/${ep}`)).toEqual({ status: 200, body: 'ok', type: 'text/plain; charset=utf-8', nosniff: 'nosniff' });
  });

  it('lists the checks with ?verbose', async () => {
    const url = await serve(ep, [good]);
    const r = await get(`${url}/${ep}?verbose`);
    expect(r.status).toBe(200);
    expect(r.body).toBe(`[+]ping ok\n[+]etcd ok\n${ep} check passed\n`);
    expect(r.type).toBe('text/plain; charset=utf-8');
    expect(r.nosniff).toBe('nosniff');
    expect((await get(`${url}/${ep}?verbose=true`)).body).toBe(`[+]ping ok\n[+]etcd ok\n${ep} check passed\n`);
  });

  it('is verbose with 500 on failure', async () => {
    const url = await serve(ep, [bad, good]);
    const expected = `[+]ping ok\n[-]bad failed: reason withheld\n[+]etcd ok\n${ep} check failed\n`;
    for (const q of ['', '?verbose']) {
      const r = await get(`${url}/${ep}${q}`);
      expect(r).toEqual({ status: 500, body: expected, type: 'text/plain; charset=utf-8', nosniff: 'nosniff' });
    }
  });

  it('treats rejected promises as failures', async () => {
    const url = await serve(ep, [asyncBad]);
    const r = await get(`${url}/${ep}`);
    expect(r.status).toBe(500);
    expect(r.body).toBe(`[+]ping ok\n[-]slow-bad failed: reason withheld\n${ep} check failed\n`);
  });

  it('skips excluded checks', async () => {
    const url = await serve(ep, [bad]);
    expect(await get(`${url}/${ep}?exclude=bad`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${url}/${ep}?verbose=true&exclude=bad`)).toMatchObject({
      status: 200,
      body: `[+]ping ok\n[+]bad excluded: ok\n${ep} check passed\n`,
    });
  });

  it('warns about excluded names with no check, sorted and quoted', async () => {
    const url = await serve(ep, [bad]);
    expect(await get(`${url}/${ep}?exclude=dontexist`)).toMatchObject({ status: 500 });
    expect(await get(`${url}/${ep}?exclude=bad&exclude=zz&exclude=dontexist`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${url}/${ep}?verbose&exclude=bad&exclude=zz&exclude=dontexist`)).toMatchObject({
      status: 200,
      body: `[+]ping ok\n[+]bad excluded: ok\nwarn: some health checks cannot be excluded: no matches for "dontexist","zz"\n${ep} check passed\n`,
    });
    expect((await get(`${url}/${ep}?exclude=x`)).body).toBe(
      `[+]ping ok\n[-]bad failed: reason withheld\nwarn: some health checks cannot be excluded: no matches for "x"\n${ep} check failed\n`,
    );
  });

  it('serves each check on its own path, with the error text', async () => {
    const url = await serve(ep, [bad, good]);
    expect(await get(`${url}/${ep}/ping`)).toMatchObject({ status: 200, body: 'ok', type: 'text/plain; charset=utf-8' });
    expect(await get(`${url}/${ep}/etcd`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${url}/${ep}/bad`)).toEqual({
      status: 500,
      body: 'internal server error: this will fail\n',
      type: 'text/plain; charset=utf-8',
      nosniff: 'nosniff',
    });
  });

  it('passes other paths to next', async () => {
    const url = await serve(ep, [good]);
    for (const p of [`/${ep}/`, `/${ep}/nope`, `/${ep}x`, '/', '/api']) {
      expect(await get(`${url}${p}`)).toMatchObject({ status: 404, body: 'fallthrough' });
    }
  });
});

describe('healthHandler options', () => {
  it('does not duplicate a caller-supplied ping and can omit it', async () => {
    srv = await listen(
      compose([healthHandler('healthz', [good, pingHealthCheck]), healthHandler('livez', [good], { ping: false })], async () => {}),
    );
    expect(await (await fetch(`${srv.url}/healthz?verbose`)).text()).toBe('[+]etcd ok\n[+]ping ok\nhealthz check passed\n');
    expect(await (await fetch(`${srv.url}/livez?verbose`)).text()).toBe('[+]etcd ok\nlivez check passed\n');
    expect((await fetch(`${srv.url}/livez/ping`)).status).toBe(200); // fell through to the empty handler
  });

  it('rejects duplicate names and names that begin or end with a slash', () => {
    expect(() => healthHandler('healthz', [good, good])).toThrow(/duplicate/);
    expect(() => healthHandler('healthz', [namedHealthCheck('/a', () => {})])).toThrow(/invalid/);
    expect(() => healthHandler('healthz', [namedHealthCheck('a/', () => {})])).toThrow(/invalid/);
  });

  it("serves a check named like kube's poststarthook/<name> at its own path", async () => {
    srv = await listen(compose([healthHandler('healthz', [namedHealthCheck('poststarthook/start-x', () => {})])], async () => {}));
    const res = await fetch(`${srv.url}/healthz/poststarthook/start-x`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
    const verbose = await (await fetch(`${srv.url}/healthz?verbose`)).text();
    expect(verbose).toContain('[+]poststarthook/start-x ok\n');
  });

  it('runs the checks on each request', async () => {
    let healthy = false;
    srv = await listen(
      compose(
        [
          healthHandler('readyz', [
            namedHealthCheck('flip', () => {
              if (!healthy) throw new Error('not yet');
            }),
          ]),
        ],
        async () => {},
      ),
    );
    expect((await fetch(`${srv.url}/readyz`)).status).toBe(500);
    healthy = true;
    expect((await fetch(`${srv.url}/readyz`)).status).toBe(200);
  });
});

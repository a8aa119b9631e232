import { TokenFileAuthenticator, unionAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import { afterEach, describe, expect, it } from 'vitest';
import { withAuthentication } from './authentication.ts';
import { compose } from './compose.ts';
import type { RequestContext } from './context.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const tokens = withAuthenticatedGroup(TokenFileAuthenticator.fromCSV('good,alice,1001,"dev,ops"\n'));
const UNAUTHORIZED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

async function serve(anonymous: boolean): Promise<{ url: string; seen: RequestContext[] }> {
  const seen: RequestContext[] = [];
  srv = await listen(
    compose([withAuthentication({ authenticator: unionAuthenticator(tokens), anonymous })], async (ctx) => {
      seen.push(ctx);
      ctx.res.end(JSON.stringify({ user: ctx.user, authorization: ctx.req.headers.authorization ?? null }));
    }),
  );
  return { url: srv.url, seen };
}

describe('withAuthentication', () => {
  it('sets ctx.user from the authenticator and removes the Authorization header', async () => {
    const { url } = await serve(false);
    const r = await fetch(url, { headers: { Authorization: 'Bearer good' } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      user: { name: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] },
      authorization: null,
    });
  });

  it('a rejected credential is kube’s 401 Status, even when anonymous requests are allowed', async () => {
    for (const anonymous of [false, true]) {
      const { url, seen } = await serve(anonymous);
      const r = await fetch(url, { headers: { Authorization: 'Bearer wrong' } });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(await r.json()).toEqual(UNAUTHORIZED);
      expect(seen).toHaveLength(0);
      await srv?.close();
      srv = undefined;
    }
  });

  it('no credential: 401 unless anonymous is allowed, then system:anonymous', async () => {
    let { url } = await serve(false);
    const denied = await fetch(url);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual(UNAUTHORIZED);
    await srv?.close();

    ({ url } = await serve(true));
    const anon = await fetch(url, { headers: { Authorization: 'Basic dXNlcjpwdw==' } });
    expect(anon.status).toBe(200);
    expect(await anon.json()).toEqual({
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
      authorization: null,
    });
  });

  it('reports the authenticator’s error to onError', async () => {
    const errors: unknown[] = [];
    srv = await listen(
      compose([withAuthentication({ authenticator: tokens, onError: (e) => errors.push(e) })], async (ctx) => {
        ctx.res.end();
      }),
    );
    expect((await fetch(srv.url, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    expect(errors.map((e) => (e as Error).message)).toEqual(['invalid bearer token']);
  });

  it('removes the standard front-proxy headers and the configured ones, whoever authenticated (also anonymous)', async () => {
    const seen: Record<string, unknown>[] = [];
    srv = await listen(
      compose(
        [
          withAuthentication({
            authenticator: unionAuthenticator(tokens),
            anonymous: true,
            requestHeaders: { usernameHeaders: ['X-Proxy-User'], extraHeaderPrefixes: ['X-Proxy-Extra-'] },
          }),
        ],
        async (ctx) => {
          seen.push({ headers: { ...ctx.req.headers }, distinct: Object.keys(ctx.req.headersDistinct) });
          ctx.res.end('{}');
        },
      ),
    );
    const spoof = { 'X-Remote-User': 'root', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'all', 'X-Remote-Uid': '0' };
    const custom = { 'X-Proxy-User': 'root', 'X-Proxy-Extra-A': 'b', 'X-Other': 'kept' };
    for (const auth of [{ Authorization: 'Bearer good' }, {}]) {
      const r = await fetch(srv.url, { headers: { ...auth, ...spoof, ...custom } });
      expect(r.status).toBe(200);
    }
    for (const { headers, distinct } of seen as { headers: Record<string, unknown>; distinct: string[] }[]) {
      expect(Object.keys(headers).filter((h) => h.startsWith('x-remote-') || h.startsWith('x-proxy-'))).toEqual([]);
      expect(distinct.filter((h) => h.startsWith('x-remote-') || h.startsWith('x-proxy-'))).toEqual([]);
      expect(headers['x-other']).toBe('kept');
    }
    expect(seen).toHaveLength(2);
  });
});

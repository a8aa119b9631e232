import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, httpsServer, type Issued, issue, makeCA } from '../test/pki.ts';
import { staticCABundle } from './ca-bundle.ts';
import { clearRequestHeaders, RequestHeaderAuthenticator, requestHeadersToClear, userFromRequestHeaders } from './request-header.ts';

const IDENTITY = {
  'X-Remote-User': 'alice',
  'X-Remote-Group': ['dev', 'ops'],
  'X-Remote-Extra-Scopes': ['read', 'write'],
  'X-Remote-Extra-Example.com%2fKey': 'v',
};

describe('RequestHeaderAuthenticator over a real TLS connection', () => {
  let proxyCA: Issued;
  let clientCA: Issued;
  let proxy: Issued;
  let srv: Awaited<ReturnType<typeof httpsServer>>;

  beforeAll(async () => {
    [proxyCA, clientCA] = await Promise.all([makeCA('front-proxy-ca'), makeCA('client-ca')]);
    proxy = await issue(proxyCA, { cn: 'front-proxy-client' });
    const authn = new RequestHeaderAuthenticator({ ca: staticCABundle(proxyCA.cert), allowedNames: ['front-proxy-client'] });
    srv = await httpsServer((headers, socket, headersDistinct) => authn.authenticate({ headers, socket, headersDistinct }));
  });
  afterAll(() => srv?.close());

  it("trusts the headers from the front proxy's certificate and removes them", async () => {
    const r = await get(srv.url, srv.ca, proxy, IDENTITY);
    expect(r.result).toEqual({
      user: { name: 'alice', groups: ['dev', 'ops'], extra: { scopes: ['read', 'write'], 'example.com/key': ['v'] } },
    });
    expect(Object.keys(r.headers).filter((h) => h.startsWith('x-remote-'))).toEqual([]);
  });

  it('X-Remote-User without a client certificate is not believed (no opinion)', async () => {
    expect(await get(srv.url, srv.ca, undefined, IDENTITY)).toMatchObject({ result: null });
  });

  it('X-Remote-User over a certificate of another CA fails', async () => {
    const other = await issue(clientCA, { cn: 'front-proxy-client' });
    expect((await get(srv.url, srv.ca, other, IDENTITY)).error).toMatch(/failed: x509: certificate signed by unknown authority$/);
  });

  it('a proxy certificate whose CN is not an allowed name fails', async () => {
    const wrong = await issue(proxyCA, { cn: 'someone-else' });
    expect((await get(srv.url, srv.ca, wrong, IDENTITY)).error).toBe('x509: subject with cn=someone-else is not in the allowed list');
  });

  it('the proxy without a username header has no opinion', async () => {
    expect(await get(srv.url, srv.ca, proxy, { 'X-Remote-Group': 'dev' })).toMatchObject({ result: null });
  });

  it('an expired proxy certificate fails', async () => {
    const old = await issue(proxyCA, {
      cn: 'front-proxy-client',
      notBefore: new Date(Date.now() - 7200_000),
      notAfter: new Date(Date.now() - 3600_000),
    });
    expect((await get(srv.url, srv.ca, old, IDENTITY)).error).toMatch(/expired or is not yet valid/);
  });

  it('configured header names and prefixes; any CN when no allowed names are given', async () => {
    const authn = new RequestHeaderAuthenticator({
      ca: staticCABundle(proxyCA.cert),
      usernameHeaders: ['X-Proxy-User', 'X-Remote-User'],
      groupHeaders: ['X-Proxy-Group'],
      extraHeaderPrefixes: ['X-Proxy-Extra-'],
    });
    const custom = await httpsServer((headers, socket, headersDistinct) => authn.authenticate({ headers, socket, headersDistinct }));
    try {
      const anyCN = await issue(proxyCA, { cn: 'any' });
      const r = await get(custom.url, custom.ca, anyCN, {
        'X-Proxy-User': '',
        'X-Remote-User': 'bob',
        'X-Proxy-Group': 'g',
        'X-Proxy-Extra-A': '1',
      });
      expect(r.result).toEqual({ user: { name: 'bob', groups: ['g'], extra: { a: ['1'] } } });
      expect(Object.keys(r.headers).filter((h) => h.startsWith('x-proxy-') || h === 'x-remote-user')).toEqual([]);
    } finally {
      await custom.close();
    }
  });
});

describe('request headers', () => {
  it('extra keys are lower-cased then %-unescaped; a key that does not unescape stays as sent', () => {
    expect(
      userFromRequestHeaders({
        headers: { 'x-remote-user': 'u', 'x-remote-uid': '42', 'x-remote-extra-a%2fb': 'x', 'x-remote-extra-bad%zz': 'y' },
      }),
    ).toEqual({ name: 'u', uid: '42', groups: [], extra: { 'a/b': ['x'], 'bad%zz': ['y'] } });
  });

  it('clearing removes the standard (or configured) names and prefixes, nothing else', () => {
    const headers = { 'x-remote-user': 'u', 'x-remote-group': 'g', 'x-remote-extra-k': 'v', 'x-remote-uid': '1', accept: '*/*' };
    expect(requestHeadersToClear(headers)).toEqual(['x-remote-user', 'x-remote-group', 'x-remote-extra-k', 'x-remote-uid']);
    clearRequestHeaders(headers);
    expect(headers).toEqual({ accept: '*/*' });
  });
});

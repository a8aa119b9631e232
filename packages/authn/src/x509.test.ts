import { createHash, X509Certificate } from 'node:crypto';
import { Agent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, httpsServer, type Issued, issue, makeCA } from '../test/pki.ts';
import { staticCABundle } from './ca-bundle.ts';
import { CREDENTIAL_ID_KEY } from './service-account-claims.ts';
import { X509Authenticator } from './x509.ts';

const HOUR = 3600_000;

describe('X509Authenticator over a real TLS connection', () => {
  let ca: Issued;
  let other: Issued;
  let srv: Awaited<ReturnType<typeof httpsServer>>;

  beforeAll(async () => {
    ca = await makeCA('client-ca');
    other = await makeCA('client-ca');
    const authn = new X509Authenticator({ ca: staticCABundle(ca.cert) });
    srv = await httpsServer((headers, socket) => authn.authenticate({ headers, socket }));
  });
  afterAll(() => srv?.close());

  it('a certificate the client CA signed is the user of its CN, in the groups of its O values', async () => {
    const alice = await issue(ca, { cn: 'alice', o: ['dev', 'system:masters'] });
    const fingerprint = createHash('sha256').update(new X509Certificate(alice.cert).raw).digest('hex');
    expect((await get(srv.url, srv.ca, alice)).result).toEqual({
      user: { name: 'alice', groups: ['dev', 'system:masters'], extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] } },
    });
  });

  it("the subject's UID attribute is the user's uid; several or an empty one fail, as kube's", async () => {
    expect((await get(srv.url, srv.ca, await issue(ca, { cn: 'u', uid: ['1001'] }))).result).toMatchObject({
      user: { name: 'u', uid: '1001' },
    });
    expect((await get(srv.url, srv.ca, await issue(ca, { cn: 'u', uid: ['1', '2'] }))).error).toBe(
      'expected 1 UID, but found multiple: [1 2]',
    );
    expect((await get(srv.url, srv.ca, await issue(ca, { cn: 'u', uid: [''] }))).error).toBe('UID cannot be an empty string');
  });

  it('no client certificate: no opinion', async () => {
    expect(await get(srv.url, srv.ca)).toMatchObject({ result: null });
  });

  it('a certificate without a CN: no opinion', async () => {
    const anonymous = await issue(ca, { cn: '', o: ['dev'] });
    expect(await get(srv.url, srv.ca, anonymous)).toMatchObject({ result: null });
  });

  it('no extended key usage at all is allowed (Go allows any usage then)', async () => {
    const bob = await issue(ca, { cn: 'bob', eku: null });
    expect((await get(srv.url, srv.ca, bob)).result).toMatchObject({ user: { name: 'bob', groups: [] } });
  });

  it('an expired certificate fails', async () => {
    const old = await issue(ca, { cn: 'alice', notBefore: new Date(Date.now() - 3 * HOUR), notAfter: new Date(Date.now() - HOUR) });
    const r = await get(srv.url, srv.ca, old);
    expect(r.error).toMatch(
      /^verifying certificate SN=\d+, .* failed: x509: certificate has expired or is not yet valid: current time .* is after /,
    );
  });

  it('a certificate not valid yet fails', async () => {
    const early = await issue(ca, { cn: 'alice', notBefore: new Date(Date.now() + HOUR), notAfter: new Date(Date.now() + 3 * HOUR) });
    expect((await get(srv.url, srv.ca, early)).error).toMatch(
      /x509: certificate has expired or is not yet valid: current time .* is before /,
    );
  });

  it('a certificate of another CA (even with the same name) fails', async () => {
    const mallory = await issue(other, { cn: 'alice', o: ['system:masters'] });
    expect((await get(srv.url, srv.ca, mallory)).error).toMatch(/failed: x509: certificate signed by unknown authority$/);
  });

  it('a serverAuth-only certificate fails: its key usage does not allow client auth', async () => {
    const server = await issue(ca, { cn: 'alice', eku: ['serverAuth'] });
    expect((await get(srv.url, srv.ca, server)).error).toMatch(/failed: x509: certificate specifies an incompatible key usage$/);
  });

  it('a chain through an intermediate CA the client sends verifies; one through a non-CA does not', async () => {
    const intermediate = await issue(ca, { cn: 'intermediate', ca: true, eku: null });
    const carol = await issue(intermediate, { cn: 'carol', o: ['ops'] });
    expect((await get(srv.url, srv.ca, { cert: carol.cert + intermediate.cert, key: carol.key })).result).toMatchObject({
      user: { name: 'carol', groups: ['ops'] },
    });
    // Without the intermediate the chain does not reach the CA (a leaf not seen before: a verified one is remembered).
    expect((await get(srv.url, srv.ca, await issue(intermediate, { cn: 'carol' }))).error).toMatch(/unknown authority/);
    const notCA = await issue(ca, { cn: 'leaf-as-issuer', ca: false, eku: null });
    const dave = await issue(notCA, { cn: 'dave' });
    expect((await get(srv.url, srv.ca, { cert: dave.cert + notCA.cert, key: dave.key })).error).toMatch(
      /not authorized to sign other certificates|unknown authority/,
    );
  });

  it('an intermediate whose extended key usage is serverAuth only cannot issue client certificates', async () => {
    const intermediate = await issue(ca, { cn: 'serving-intermediate', ca: true, eku: ['serverAuth'] });
    const erin = await issue(intermediate, { cn: 'erin' });
    expect((await get(srv.url, srv.ca, { cert: erin.cert + intermediate.cert, key: erin.key })).error).toMatch(/incompatible key usage/);
  });

  it('a remembered verification ends when the certificate does', async () => {
    let now = Date.now();
    const authn = new X509Authenticator({ ca: staticCABundle(ca.cert), now: () => now });
    const clocked = await httpsServer((headers, socket) => authn.authenticate({ headers, socket }));
    try {
      const frank = await issue(ca, { cn: 'frank', notAfter: new Date(now + 60_000) });
      expect((await get(clocked.url, clocked.ca, frank)).result).toMatchObject({ user: { name: 'frank' } });
      now += 120_000;
      expect((await get(clocked.url, clocked.ca, frank)).error).toMatch(/expired or is not yet valid: current time .* is after/);
    } finally {
      await clocked.close();
    }
  });

  it('every request of a kept-open connection sees the intermediates it sent, even when verified anew', async () => {
    const pem = ca.cert;
    // A bundle whose list is new on every read, as after a reload: nothing verified is reused.
    const reloading = { certificates: () => [new X509Certificate(pem)], pem: () => pem, onChange: () => () => {} };
    const authn = new X509Authenticator({ ca: reloading });
    const fresh = await httpsServer((headers, socket) => authn.authenticate({ headers, socket }));
    const intermediate = await issue(ca, { cn: 'intermediate', ca: true, eku: null });
    const gina = await issue(intermediate, { cn: 'gina' });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<unknown>();
      for (let i = 0; i < 3; i++) {
        const r = await get(fresh.url, fresh.ca, { cert: gina.cert + intermediate.cert, key: gina.key }, {}, agent, (s) => sockets.add(s));
        expect(r.result).toMatchObject({ user: { name: 'gina' } });
      }
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
      await fresh.close();
    }
  });

  it('the CA bundle may hold several CAs', async () => {
    const both = new X509Authenticator({ ca: staticCABundle(ca.cert + other.cert) });
    const two = await httpsServer((headers, socket) => both.authenticate({ headers, socket }));
    try {
      expect((await get(two.url, two.ca, await issue(other, { cn: 'x' }))).result).toMatchObject({ user: { name: 'x' } });
      expect((await get(two.url, two.ca, await issue(ca, { cn: 'y' }))).result).toMatchObject({ user: { name: 'y' } });
    } finally {
      await two.close();
    }
  });
});

describe('staticCABundle', () => {
  it('refuses text without a certificate', () => {
    expect(() => staticCABundle('nothing here', 'ca.crt')).toThrow('ca.crt: data does not contain any valid RSA or ECDSA certificates');
  });
});

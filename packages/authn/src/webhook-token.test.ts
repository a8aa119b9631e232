import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BearerTokenAuthenticator } from './bearer-token.ts';
import { makeTestCA, type TestCertificate } from './test-support/test-ca.ts';
import { TokenCache } from './token-cache.ts';
import { DEFAULT_WEBHOOK_RETRY_BACKOFF, type WebhookClientConfig } from './webhook-client.ts';
import { loadWebhookKubeconfig, webhookClientConfigOf } from './webhook-kubeconfig.ts';
import { WebhookTokenAuthenticator, webhookTokenAuthenticator } from './webhook-token.ts';

type Issued = TestCertificate;

type Reply = { code: number; body?: unknown; retryAfter?: string };

/** A TokenReview webhook on loopback over HTTPS: records each review and the caller, answers with `respond`. */
class ReviewWebhook {
  readonly reviews: { spec: { token: string; audiences?: string[] }; clientCN?: string; authorization?: string }[] = [];
  respond: (spec: { token: string; audiences?: string[] }, n: number) => Reply = () => ({ code: 200, body: {} });
  server!: Server;
  url = '';

  async start(tls: Issued, clientCA: string): Promise<void> {
    this.server = createServer({ ...tls, ca: clientCA, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const sock = req.socket as TLSSocket;
        const peer = sock.authorized ? sock.getPeerCertificate() : undefined;
        this.reviews.push({
          spec: review.spec,
          ...(peer?.subject ? { clientCN: String(peer.subject.CN) } : {}),
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        });
        expect(review).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview' });
        const reply = this.respond(review.spec, this.reviews.length);
        if (reply.code === 0) return void req.socket.destroy(); // a dropped connection
        res.writeHead(reply.code, { 'content-type': 'application/json', ...(reply.retryAfter ? { 'retry-after': reply.retryAfter } : {}) });
        res.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', ...(reply.body as object) }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/authenticate`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const ALICE = { username: 'alice', uid: '42', groups: ['dev'], extra: { scopes: ['a', 'b'] } };

describe('WebhookTokenAuthenticator against a TokenReview webhook over HTTPS', () => {
  const hook = new ReviewWebhook();
  let serverCA: Awaited<ReturnType<typeof makeTestCA>>;
  let clientCA: Awaited<ReturnType<typeof makeTestCA>>;
  let client: Issued;
  let config: WebhookClientConfig;
  const opened: WebhookTokenAuthenticator[] = [];
  const noSleep = { sleep: async () => {} };
  const make = (c: WebhookClientConfig, o: ConstructorParameters<typeof WebhookTokenAuthenticator>[1] = {}) => {
    const w = new WebhookTokenAuthenticator(c, { ...noSleep, ...o });
    opened.push(w);
    return w;
  };

  beforeAll(async () => {
    serverCA = await makeTestCA('webhook-ca');
    clientCA = await makeTestCA('webhook-client-ca');
    client = await clientCA.issue('CN=kapi-apiserver', 'client');
    await hook.start(await serverCA.issue('CN=webhook', 'server'), clientCA.pem);
    config = { server: hook.url, ca: serverCA.pem, cert: client.cert, key: client.key };
  });
  afterAll(async () => {
    for (const w of opened) w.close();
    await hook.stop();
  });
  beforeEach(() => {
    hook.reviews.length = 0;
    hook.respond = (spec) =>
      spec.token === 'good-token'
        ? { code: 200, body: { status: { authenticated: true, user: ALICE } } }
        : { code: 200, body: { status: { authenticated: false } } };
  });

  it('sends a TokenReview with the client certificate and takes the user the webhook answers', async () => {
    const w = make(config);
    expect(await w.authenticateToken('good-token')).toEqual({
      user: { name: 'alice', uid: '42', groups: ['dev'], extra: { scopes: ['a', 'b'] } },
    });
    expect(hook.reviews).toEqual([{ spec: { token: 'good-token' }, clientCN: 'kapi-apiserver' }]);
  });

  it('a denial is "not mine" (the bearer authenticator makes it "invalid bearer token"); a denial with an error fails', async () => {
    const w = make(config);
    expect(await w.authenticateToken('bad-token')).toBeNull();
    await expect(new BearerTokenAuthenticator(w).authenticate({ headers: { authorization: 'Bearer bad-token' } })).rejects.toThrow(
      /^invalid bearer token$/,
    );
    hook.respond = () => ({ code: 200, body: { status: { authenticated: false, error: 'token revoked' } } });
    await expect(w.authenticateToken('bad-token')).rejects.toThrow(/^token revoked$/);
  });

  it('sends the request’s audiences and keeps those the webhook confirms (or the API audiences when it names none)', async () => {
    const w = make(config, { apiAudiences: ['https://kapi'] });
    hook.respond = (spec) => ({
      code: 200,
      body: { status: { authenticated: true, user: ALICE, audiences: spec.audiences?.includes('vault') ? ['vault'] : [] } },
    });
    expect((await w.authenticateToken('t', ['vault', 'other']))?.audiences).toEqual(['vault']);
    expect(hook.reviews.at(-1)?.spec).toEqual({ token: 't', audiences: ['vault', 'other'] });
    // No status.audiences: the API audiences stand in, as kube's implicit audiences.
    expect((await w.authenticateToken('t', ['https://kapi']))?.audiences).toEqual(['https://kapi']);
    expect(await w.authenticateToken('t', ['elsewhere'])).toBeNull();
    hook.respond = () => ({ code: 200, body: { status: { authenticated: true, user: ALICE, audiences: ['x'] } } });
    expect(await w.authenticateToken('t', ['vault'])).toBeNull();
  });

  it('retries 5xx and 429 with backoff, then succeeds; gives up after kube’s 5 attempts', async () => {
    expect(DEFAULT_WEBHOOK_RETRY_BACKOFF).toEqual({ initialDelayMs: 500, factor: 1.5, jitter: 0.2, steps: 5 });
    const waits: number[] = [];
    const w = make(config, { sleep: async (ms) => void waits.push(ms) });
    hook.respond = (_spec, n) =>
      n === 1 ? { code: 500 } : n === 2 ? { code: 429 } : { code: 200, body: { status: { authenticated: true, user: ALICE } } };
    expect((await w.authenticateToken('good-token'))?.user.name).toBe('alice');
    expect(hook.reviews).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(500);
    expect(waits[0]).toBeLessThanOrEqual(600);
    expect(waits[1]).toBeGreaterThanOrEqual(750);
    expect(waits[1]).toBeLessThanOrEqual(900);

    hook.reviews.length = 0;
    hook.respond = () => ({ code: 504 });
    const err = await w.authenticateToken('secret-token-xyz').catch((e: Error) => e);
    expect(hook.reviews).toHaveLength(5);
    expect(String(err)).toMatch(/Failed to make webhook authenticator request: the webhook answered 504/);
    expect(String(err)).not.toContain('secret-token-xyz');
  });

  it("retries other 5xx only with a Retry-After, as kube's DefaultShouldRetry", async () => {
    const w = make(config);
    hook.respond = () => ({ code: 503 });
    await expect(w.authenticateToken('good-token')).rejects.toThrow(/answered 503/);
    expect(hook.reviews).toHaveLength(1);
    hook.respond = () => ({ code: 502 });
    await expect(w.authenticateToken('good-token')).rejects.toThrow(/answered 502/);
    expect(hook.reviews).toHaveLength(2);
    hook.respond = (_spec, n) =>
      n === 3 ? { code: 503, retryAfter: '1' } : { code: 200, body: { status: { authenticated: true, user: ALICE } } };
    expect((await w.authenticateToken('good-token'))?.user.name).toBe('alice');
    expect(hook.reviews).toHaveLength(4);
  });

  it('refuses an answer past maxResponseBytes, without retrying', async () => {
    const w = make(config, { maxResponseBytes: 1000 });
    hook.respond = () => ({ code: 200, body: { status: { authenticated: true, user: { ...ALICE, groups: Array(500).fill('g') } } } });
    await expect(w.authenticateToken('good-token')).rejects.toThrow(/answered more than 1000 bytes/);
    expect(hook.reviews).toHaveLength(1);
  });

  it('does not retry a 4xx other than 429', async () => {
    const w = make(config);
    hook.respond = () => ({ code: 403 });
    await expect(w.authenticateToken('good-token')).rejects.toThrow(/answered 403/);
    expect(hook.reviews).toHaveLength(1);
  });

  it('retries a dropped connection; refuses, without retrying, a webhook whose certificate is not from the configured CA', async () => {
    const waits: number[] = [];
    const w = make(config, { sleep: async (ms) => void waits.push(ms) });
    hook.respond = (_spec, n) => (n === 1 ? { code: 0 } : { code: 200, body: { status: { authenticated: true, user: ALICE } } });
    expect((await w.authenticateToken('good-token'))?.user.name).toBe('alice');
    expect(hook.reviews).toHaveLength(2);
    expect(waits).toHaveLength(1);

    hook.reviews.length = 0;
    const other = await makeTestCA('someone-else');
    const w2 = make({ ...config, ca: other.pem }, { sleep: async (ms) => void waits.push(ms) });
    const err = await w2.authenticateToken('good-token').catch((e: Error) => e);
    expect(String(err)).toMatch(/Failed to make webhook authenticator request/);
    expect(String(err)).not.toContain('good-token');
    expect(hook.reviews).toHaveLength(0);
    expect(waits).toHaveLength(1);
  });

  it('is cached by default: one webhook call per token and audiences within the TTL', async () => {
    const cached = webhookTokenAuthenticator(config, noSleep);
    expect(cached).toBeInstanceOf(TokenCache);
    for (let i = 0; i < 5; i++) expect((await cached.authenticateToken('good-token'))?.user.name).toBe('alice');
    await Promise.all(Array.from({ length: 10 }, () => cached.authenticateToken('bad-token')));
    expect(await cached.authenticateToken('bad-token')).toBeNull();
    await cached.authenticateToken('good-token', ['other']);
    expect(hook.reviews.map((r) => r.spec.token)).toEqual(['good-token', 'bad-token', 'good-token']);
  });

  it('reads a kubeconfig-format file: CA and client certificate by path or data, user token, current context', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-webhook-'));
    try {
      writeFileSync(join(dir, 'ca.crt'), serverCA.pem);
      writeFileSync(join(dir, 'client.crt'), client.cert);
      writeFileSync(join(dir, 'client.key'), client.key);
      const kubeconfig = {
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'webhook',
        clusters: [
          { name: 'decoy', cluster: { server: 'https://127.0.0.1:1' } },
          { name: 'authn', cluster: { server: hook.url, 'certificate-authority': 'ca.crt' } },
        ],
        users: [{ name: 'apiserver', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key', token: 'hook-credential' } }],
        contexts: [{ name: 'webhook', context: { cluster: 'authn', user: 'apiserver' } }],
      };
      writeFileSync(join(dir, 'kubeconfig.json'), JSON.stringify(kubeconfig));
      const w = make(loadWebhookKubeconfig(join(dir, 'kubeconfig.json')));
      expect((await w.authenticateToken('good-token'))?.user.name).toBe('alice');
      expect(hook.reviews.at(-1)).toMatchObject({ clientCN: 'kapi-apiserver', authorization: 'Bearer hook-credential' });

      const inline = webhookClientConfigOf({
        clusters: [
          { name: 'c', cluster: { server: hook.url, 'certificate-authority-data': Buffer.from(serverCA.pem).toString('base64') } },
        ],
        users: [
          {
            name: 'u',
            user: {
              'client-certificate-data': Buffer.from(client.cert).toString('base64'),
              'client-key-data': Buffer.from(client.key).toString('base64'),
            },
          },
        ],
      });
      expect((await make(inline).authenticateToken('good-token'))?.user.name).toBe('alice');
      expect(hook.reviews.at(-1)?.clientCN).toBe('kapi-apiserver');
      // Without the client certificate the webhook sees no client.
      expect((await make({ server: hook.url, ca: serverCA.pem }).authenticateToken('good-token'))?.user.name).toBe('alice');
      expect(hook.reviews.at(-1)?.clientCN).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a kubeconfig without a server', () => {
    expect(() => webhookClientConfigOf({ clusters: [{ name: 'x', cluster: {} }] })).toThrow(/no cluster with a server/);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { UserInfo, WebhookClientConfig } from '@kapi/authn';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTestCA, type TestCA, type TestCertificate } from '../../../authn/src/test-support/test-ca.ts';
import type { AuthorizationAttributes } from '../authorizer.ts';
import { unionAuthorizer } from '../union.ts';
import {
  WEBHOOK_RULES_NOT_SUPPORTED,
  WebhookAuthorizer,
  WebhookAuthorizerError,
  type WebhookAuthorizerOptions,
  type WebhookEvaluationResult,
} from './webhook-authorizer.ts';

/** What the webhook answers: an HTTP code (0 drops the connection) and the review's status. */
type Reply = { code: number; status?: Record<string, unknown>; delayMs?: number };

/** A SubjectAccessReview webhook on loopback over HTTPS (a client certificate from `clientCA` is asked for). */
class SARWebhook {
  readonly bodies: string[] = [];
  readonly clients: (string | undefined)[] = [];
  respond: (review: { spec: Record<string, unknown> }) => Reply = () => ({ code: 200, status: { allowed: false } });
  server!: Server;
  url = '';

  async start(tls: TestCertificate, clientCA: string): Promise<void> {
    this.server = createServer({ ...tls, ca: clientCA, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.bodies.push(body);
        const sock = req.socket as TLSSocket;
        this.clients.push(sock.authorized ? String(sock.getPeerCertificate().subject.CN) : undefined);
        const review = JSON.parse(body);
        const reply = this.respond(review);
        const send = (): void => {
          if (reply.code === 0) return void req.socket.destroy();
          res.writeHead(reply.code, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: reply.status ?? {} }));
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/authorize`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const JANE: UserInfo = {
  name: 'jane',
  uid: 'u-1',
  groups: ['dev', 'system:authenticated'],
  extra: { 'scopes.example.com': ['b', 'a'], acme: ['x'] },
};

function getPods(user: UserInfo = JANE, name = 'p1'): AuthorizationAttributes {
  return {
    user,
    verb: 'get',
    resourceRequest: true,
    namespace: 'kittens',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: 'log',
    name,
    path: `/api/v1/namespaces/kittens/pods/${name}/log`,
  };
}

describe('WebhookAuthorizer against a SubjectAccessReview webhook over HTTPS', () => {
  const hook = new SARWebhook();
  let serverCA: TestCA;
  let client: TestCertificate;
  let config: WebhookClientConfig;
  const opened: WebhookAuthorizer[] = [];
  let now = 1_000_000;
  const evaluations: [string, WebhookEvaluationResult][] = [];
  const failOpen: [string, WebhookEvaluationResult][] = [];
  const make = (o: WebhookAuthorizerOptions = {}, c: WebhookClientConfig = config): WebhookAuthorizer => {
    const w = new WebhookAuthorizer(c, {
      sleep: async () => {},
      clock: { now: () => now },
      metrics: {
        onEvaluation: (name, result) => void evaluations.push([name, result]),
        onFailOpen: (name, result) => void failOpen.push([name, result]),
      },
      ...o,
    });
    opened.push(w);
    return w;
  };

  beforeAll(async () => {
    serverCA = await makeTestCA('sar-webhook-ca');
    const clientCA = await makeTestCA('sar-client-ca');
    client = await clientCA.issue('CN=kapi-apiserver', 'client');
    await hook.start(await serverCA.issue('CN=webhook', 'server'), clientCA.pem);
    config = { server: hook.url, ca: serverCA.pem, cert: client.cert, key: client.key };
  });
  afterAll(async () => {
    for (const w of opened) w.close();
    await hook.stop();
  });
  beforeEach(() => {
    hook.bodies.length = 0;
    hook.clients.length = 0;
    evaluations.length = 0;
    failOpen.length = 0;
    hook.respond = () => ({ code: 200, status: { allowed: false } });
  });

  it('POSTs the SubjectAccessReview exactly as kube builds it, presenting the client certificate', async () => {
    const w = make();
    await w.authorize(getPods());
    expect(hook.bodies[0]).toBe(
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},' +
        '"spec":{"resourceAttributes":{"namespace":"kittens","verb":"get","version":"v1","resource":"pods","subresource":"log","name":"p1"},' +
        '"user":"jane","groups":["dev","system:authenticated"],"extra":{"acme":["x"],"scopes.example.com":["b","a"]},"uid":"u-1"},' +
        '"status":{"allowed":false}}\n',
    );
    expect(hook.clients).toEqual(['kapi-apiserver']);

    await w.authorize({ ...getPods({ name: 'system:anonymous', groups: [] }), resourceRequest: false, path: '/healthz<x>', verb: 'get' });
    expect(JSON.parse(hook.bodies[1] as string).spec).toEqual({
      nonResourceAttributes: { path: '/healthz<x>', verb: 'get' },
      user: 'system:anonymous',
    });
    expect(hook.bodies[1]).toContain('"/healthz\\u003cx\\u003e"'); // Go's JSON escapes < and >

    const beta = make({ version: 'v1beta1' });
    await beta.authorize(getPods(JANE, 'p2'));
    expect(JSON.parse(hook.bodies[2] as string)).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1beta1',
      spec: { group: ['dev', 'system:authenticated'] },
    });
  });

  it('decides from status.allowed, status.denied and status.reason', async () => {
    const w = make({ authorizedTTLMs: 0, unauthorizedTTLMs: 0 });
    hook.respond = () => ({ code: 200, status: { allowed: true, reason: 'RBAC says so' } });
    expect(await w.authorize(getPods())).toEqual({ decision: 'Allow', reason: 'RBAC says so' });
    hook.respond = () => ({ code: 200, status: { allowed: false, denied: true, reason: 'no pods for jane' } });
    expect(await w.authorize(getPods())).toEqual({ decision: 'Deny', reason: 'no pods for jane' });
    hook.respond = () => ({ code: 200, status: { allowed: false, reason: 'not my business', evaluationError: 'x' } });
    expect(await w.authorize(getPods())).toEqual({ decision: 'NoOpinion', reason: 'not my business' });
    hook.respond = () => ({ code: 200, status: { allowed: true, denied: true, reason: 'confused' } });
    expect(await w.authorize(getPods())).toEqual({ decision: 'Deny', reason: 'confused' });
    expect(evaluations).toEqual(Array(4).fill(['default', 'success']));
  });

  it('caches decisions by the whole review: allowed for 5 minutes, others for 30 seconds (kube defaults)', async () => {
    const w = make({ name: 'corp' });
    hook.respond = (r) => ({ code: 200, status: { allowed: (r.spec.resourceAttributes as { name: string }).name === 'ok' } });
    for (let i = 0; i < 3; i++) {
      expect((await w.authorize(getPods(JANE, 'ok'))).decision).toBe('Allow');
      expect((await w.authorize(getPods(JANE, 'no'))).decision).toBe('NoOpinion');
    }
    expect(hook.bodies).toHaveLength(2);
    // Another user, group set or extra is another key.
    await w.authorize(getPods({ ...JANE, groups: ['dev'] }, 'ok'));
    await w.authorize(getPods({ ...JANE, extra: {} }, 'ok'));
    expect(hook.bodies).toHaveLength(4);

    now += 30_000; // at its expiry the unauthorized entry is still served (kube's LRUExpireCache) …
    await w.authorize(getPods(JANE, 'no'));
    expect(hook.bodies).toHaveLength(4);
    now += 1; // … and after it, it is not; the authorized one stays
    await w.authorize(getPods(JANE, 'ok'));
    await w.authorize(getPods(JANE, 'no'));
    expect(hook.bodies).toHaveLength(5);
    now += 5 * 60_000 - 30_000 - 1;
    await w.authorize(getPods(JANE, 'ok'));
    expect(hook.bodies).toHaveLength(5);
    now += 1;
    await w.authorize(getPods(JANE, 'ok'));
    expect(hook.bodies).toHaveLength(6);
    expect(evaluations.every(([name, r]) => name === 'corp' && r === 'success')).toBe(true);
  });

  it('takes other TTLs, and 0 turns caching off', async () => {
    const w = make({ authorizedTTLMs: 1000, unauthorizedTTLMs: 0 });
    hook.respond = (r) => ({ code: 200, status: { allowed: (r.spec.resourceAttributes as { name: string }).name === 'ok' } });
    await w.authorize(getPods(JANE, 'no'));
    await w.authorize(getPods(JANE, 'no'));
    expect(hook.bodies).toHaveLength(2);
    await w.authorize(getPods(JANE, 'ok'));
    now += 1000;
    await w.authorize(getPods(JANE, 'ok'));
    expect(hook.bodies).toHaveLength(3);
    now += 1;
    await w.authorize(getPods(JANE, 'ok'));
    expect(hook.bodies).toHaveLength(4);
  });

  it('does not cache requests with huge requester-controlled attributes (kube shouldCache)', async () => {
    const w = make();
    const big = getPods(JANE, 'x'.repeat(10_000));
    await w.authorize(big);
    await w.authorize(big);
    expect(hook.bodies).toHaveLength(2);
  });

  it("on failure decides nothing: an evaluation error (NoOpinion in a union), counted as fail-open, after kube's retries", async () => {
    const w = make();
    hook.respond = () => ({ code: 500 });
    const err = await w.authorize(getPods()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookAuthorizerError);
    expect(String((err as Error).message)).toBe('Failed to make webhook authorizer request: the webhook answered 500');
    expect(hook.bodies).toHaveLength(5); // kube's 5 attempts
    expect(evaluations).toEqual(Array(5).fill(['default', 'error']));
    expect(failOpen).toEqual([['default', 'error']]);

    // Failures are not cached: the next request asks again, and may succeed.
    hook.respond = () => ({ code: 200, status: { allowed: true } });
    expect((await w.authorize(getPods())).decision).toBe('Allow');

    // In a union, a later authorizer still decides; with none allowing, the error surfaces (kube's 500).
    hook.respond = () => ({ code: 403 });
    const allowAll = { authorize: async () => ({ decision: 'Allow' as const, reason: '' }) };
    expect((await unionAuthorizer(make(), allowAll).authorize(getPods())).decision).toBe('Allow');
    await expect(unionAuthorizer(make()).authorize(getPods())).rejects.toThrow(/answered 403/);
  });

  it('a timeout is a failure labelled timeout (not retried, as kube), and so is a 504 (retried)', async () => {
    const w = make({ timeoutMs: 100 });
    hook.respond = () => ({ code: 200, status: { allowed: true }, delayMs: 400 });
    await expect(w.authorize(getPods())).rejects.toThrow(/Failed to make webhook authorizer request: timeout after 100 ms/);
    expect(evaluations).toEqual([['default', 'timeout']]);
    expect(failOpen).toEqual([['default', 'timeout']]);

    hook.respond = () => ({ code: 504 });
    await expect(w.authorize(getPods())).rejects.toThrow(/answered 504/);
    expect(evaluations.slice(1)).toEqual(Array(5).fill(['default', 'timeout']));
  });

  it('refuses a webhook whose serving certificate is not from the configured CA, and a refused connection, without retrying', async () => {
    const other = await makeTestCA('someone-else');
    const w = make({}, { ...config, ca: other.pem });
    await expect(w.authorize(getPods())).rejects.toThrow(
      /Failed to make webhook authorizer request: .*(self-signed|unable to verify|certificate)/,
    );
    expect(hook.bodies).toHaveLength(0);
    expect(evaluations).toEqual([['default', 'error']]);

    const closed = make({}, { ...config, server: 'https://127.0.0.1:1/authorize' });
    await expect(closed.authorize(getPods())).rejects.toThrow(/ECONNREFUSED/);
  });

  it("reads kube's --authorization-webhook-config-file (kubeconfig format)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-authz-webhook-'));
    try {
      writeFileSync(join(dir, 'ca.crt'), serverCA.pem);
      writeFileSync(join(dir, 'client.crt'), client.cert);
      writeFileSync(join(dir, 'client.key'), client.key);
      const file = join(dir, 'authz-webhook.json');
      writeFileSync(
        file,
        JSON.stringify({
          clusters: [{ name: 'authz', cluster: { server: hook.url, 'certificate-authority': 'ca.crt' } }],
          users: [{ name: 'apiserver', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key' } }],
        }),
      );
      hook.respond = () => ({ code: 200, status: { allowed: true } });
      const w = WebhookAuthorizer.fromKubeconfigFile(file, { sleep: async () => {} });
      opened.push(w);
      expect((await w.authorize(getPods())).decision).toBe('Allow');
      expect(hook.clients).toEqual(['kapi-apiserver']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("cannot list rules (kube's text), and refuses an unknown version or no attempts", async () => {
    expect(await make().rulesFor(JANE, 'x')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      error: new Error(WEBHOOK_RULES_NOT_SUPPORTED),
    });
    expect(() => new WebhookAuthorizer(config, { retryBackoff: { initialDelayMs: 1, factor: 1, jitter: 0, steps: 0 } })).toThrow(
      'number of webhook retry attempts must be greater than 0, but is: 0',
    );
    expect(() => new WebhookAuthorizer(config, { version: 'v2' as 'v1' })).toThrow(
      'unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"',
    );
  });
});

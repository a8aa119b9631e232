import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Authenticator, TokenFileAuthenticator, unionAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { LogAuditBackend } from '../audit/log-backend.ts';
import { policyAtLevel } from '../audit/policy.ts';
import { encodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from '../endpoints/protobuf/codec.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer, type GenericAPIServerOptions } from '../server/generic-api-server.ts';

/** TokenReview, the 401 body, authentication metrics and API audiences over HTTP through GenericAPIServer. */

const TOKENS = 'admin-token,admin,1,"system:masters"\nreview-me-secret-xyz,carol,3,"dev"\n';
const TR = '/apis/authentication.k8s.io/v1/tokenreviews';
const AUD = 'https://kapi.test';

let running: { server: GenericAPIServer; http: Listening } | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await running?.http.close();
  await running?.server.shutdown();
  running = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tokenFile = () => TokenFileAuthenticator.fromCSV(TOKENS, '<inline>', { apiAudiences: [AUD] });

async function start(options: Partial<GenericAPIServerOptions> = {}): Promise<string> {
  const server = new GenericAPIServer({
    storage: new MemoryStorage(),
    resources: [Namespace, ConfigMap],
    authentication: { authenticator: withAuthenticatedGroup(tokenFile()), apiAudiences: [AUD] },
    ...options,
  });
  await server.start();
  running = { server, http: await listen(server.handler) };
  return running.http.url;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
const json = async (res: Response): Promise<any> => res.json();

function review(url: string, spec: unknown, token = 'admin-token'): Promise<Response> {
  return fetch(`${url}${TR}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec }),
  });
}

describe('TokenReview (authentication.k8s.io/v1 tokenreviews)', () => {
  it('authenticates spec.token with the server’s authenticators for the API audiences, never echoing the token', async () => {
    const url = await start();
    const res = await review(url, { token: 'review-me-secret-xyz' });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain('review-me-secret-xyz');
    expect(JSON.parse(text)).toEqual({
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      spec: {},
      status: {
        authenticated: true,
        user: { username: 'carol', uid: '3', groups: ['dev', 'system:authenticated'] },
        audiences: [AUD],
      },
    });
  });

  it('takes the review as protobuf, as client-go sends it with a protobuf content type (a delegating authenticator)', async () => {
    const url = await start();
    const body = encodeKubernetesProtobuf({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: {},
      spec: { token: 'review-me-secret-xyz', audiences: [AUD] },
    });
    const res = await fetch(`${url}${TR}`, {
      method: 'POST',
      headers: { 'content-type': KUBERNETES_PROTOBUF, accept: 'application/json', authorization: 'Bearer admin-token' },
      body,
    });
    expect(res.status).toBe(201);
    expect((await json(res)).status).toEqual({
      authenticated: true,
      user: { username: 'carol', uid: '3', groups: ['dev', 'system:authenticated'] },
      audiences: [AUD],
    });
  });

  it('answers authenticated false with the error for an unknown token, and for audiences the token is not good for', async () => {
    const url = await start();
    expect((await json(await review(url, { token: 'nope' }))).status).toEqual({ authenticated: false, error: 'invalid bearer token' });
    const other = await json(await review(url, { token: 'review-me-secret-xyz', audiences: ['vault'] }));
    expect(other.spec).toEqual({ audiences: ['vault'] });
    expect(other.status).toEqual({ authenticated: false, error: 'invalid bearer token' });
    const both = await json(await review(url, { token: 'review-me-secret-xyz', audiences: ['vault', AUD] }));
    expect(both.status).toMatchObject({ authenticated: true, audiences: [AUD] });
  });

  it('refuses a review without a token (400), and any verb but create', async () => {
    const url = await start();
    const res = await review(url, {});
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ reason: 'BadRequest', message: 'token is required for TokenReview in authentication' });
    const list = await fetch(`${url}${TR}`, { headers: { authorization: 'Bearer admin-token' } });
    expect(list.status).toBe(405);
  });

  it('is listed in discovery with the create verb, and only when the server authenticates', async () => {
    const url = await start();
    const doc = await json(await fetch(`${url}/apis/authentication.k8s.io/v1`, { headers: { authorization: 'Bearer admin-token' } }));
    expect(doc.resources).toContainEqual(
      expect.objectContaining({ name: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: ['create'] }),
    );
    await running?.http.close();
    await running?.server.shutdown();
    running = undefined;
    const bare = await start({ authentication: undefined });
    const doc2 = await json(await fetch(`${bare}/apis/authentication.k8s.io/v1`));
    expect(doc2.resources.map((r: { name: string }) => r.name)).not.toContain('tokenreviews');
  });

  it('is a server fault (500) when an authenticator ignores the audiences it was asked for', async () => {
    const careless: Authenticator = { authenticate: async () => ({ user: { name: 'x', groups: [] }, audiences: ['elsewhere'] }) };
    const url = await start({ authentication: { authenticator: careless } });
    const res = await review(url, { token: 't', audiences: ['vault'] });
    expect(res.status).toBe(500);
    expect(await json(res)).toMatchObject({ message: 'Internal error occurred: error validating audiences' });
  });
});

describe('authentication failures, audiences and metrics', () => {
  it('answers a refused credential and a missing one with kube’s 401 Status', async () => {
    const url = await start();
    for (const headers of [{ authorization: 'Bearer wrong' }, {}] as Record<string, string>[]) {
      const res = await fetch(`${url}/api/v1/namespaces`, { headers });
      expect(res.status).toBe(401);
      expect(await json(res)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
  });

  it('refuses (401) a credential whose audiences are not among the API audiences', async () => {
    const scoped: Authenticator = {
      authenticate: async (req) => {
        expect(req.audiences).toEqual([AUD]);
        return { user: { name: 'x', groups: [] }, audiences: ['elsewhere'] };
      },
    };
    const url = await start({ authentication: { authenticator: scoped, apiAudiences: [AUD] } });
    expect((await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: 'Bearer t' } })).status).toBe(401);
  });

  it('counts and times attempts by result in /metrics', async () => {
    const url = await start();
    await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: 'Bearer admin-token' } });
    await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: 'Bearer admin-token' } });
    await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: 'Bearer wrong' } });
    await fetch(`${url}/api/v1/namespaces`);
    const text = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer admin-token' } })).text();
    expect(text).toContain('# TYPE authentication_attempts counter');
    // Two reads and the scrape itself.
    expect(text).toContain('authentication_attempts{result="success"} 3');
    expect(text).toContain('authentication_attempts{result="error"} 1');
    expect(text).toContain('authentication_attempts{result="failure"} 1');
    expect(text).toContain('# TYPE authentication_duration_seconds histogram');
    expect(text).toMatch(/authentication_duration_seconds_bucket\{le="0\.001",result="success"\} \d/);
    expect(text).toContain('authentication_duration_seconds_count{result="error"} 1');
    expect(text).toContain('authenticated_user_requests{username="admin"} 3');
  });

  it('writes no token into the audit log, error callbacks or responses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-'));
    dirs.push(dir);
    const path = join(dir, 'audit.log');
    const errors: string[] = [];
    const url = await start({
      authentication: {
        authenticator: unionAuthenticator(withAuthenticatedGroup(tokenFile())),
        apiAudiences: [AUD],
        onError: (err) => errors.push(String(err), (err as Error).stack ?? ''),
      },
      audit: { backend: new LogAuditBackend(path), policy: policyAtLevel('RequestResponse') },
    });
    const bodies = [
      await (await review(url, { token: 'review-me-secret-xyz' })).text(),
      await (await review(url, { token: 'forged-token-abc123' })).text(),
      await (await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: 'Bearer forged-token-abc123' } })).text(),
    ];
    await running?.http.close();
    await running?.server.shutdown();
    running = undefined;
    const log = readFileSync(path, 'utf8');
    expect(log).toContain('"resource":"tokenreviews"');
    expect(log).toContain('"requestObject"'); // the review was recorded, without its token
    for (const secret of ['review-me-secret-xyz', 'forged-token-abc123', 'admin-token']) {
      expect(log).not.toContain(secret);
      expect(errors.join('\n')).not.toContain(secret);
      expect(bodies.join('\n')).not.toContain(secret);
    }
    expect(errors.length).toBeGreaterThan(0);
  });
});

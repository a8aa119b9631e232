import { PassThrough } from 'node:stream';
import type { AdmissionAttributes } from '@kapi/admission';
import { newForbidden } from '@kapi/apimachinery';
import {
  generateServiceAccountKeyPEM,
  ServiceAccountAuthenticator,
  ServiceAccountTokenIssuer,
  TokenFileAuthenticator,
  unionAuthenticator,
  withAuthenticatedGroup,
} from '@kapi/authn';
import { Namespace, Secret, ServiceAccount } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { base64url, createLocalJWKSet, decodeJwt, jwtVerify, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { LogAuditBackend } from '../audit/log-backend.ts';
import { policyAtLevel } from '../audit/policy.ts';
import type { Admission } from '../endpoints/resource-handler.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import { storeObjectGetter } from './store-object-getter.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const PEM = generateServiceAccountKeyPEM();
const ADMIN = { authorization: 'Bearer admin-token' };
const SA_PATH = '/api/v1/namespaces/default/serviceaccounts';

let running: { server: GenericAPIServer; http: Listening }[] = [];
afterEach(async () => {
  for (const r of running.reverse()) {
    await r.http.close();
    await r.server.shutdown();
  }
  running = [];
});

async function start(opts: { maxExpirationSeconds?: number; auditTo?: PassThrough; admission?: Admission; apiAudiences?: string[] } = {}) {
  const { auditTo, admission, apiAudiences, ...issuerOpts } = opts;
  const issuer = new ServiceAccountTokenIssuer({ issuer: ISSUER, key: PEM, ...issuerOpts });
  let server: GenericAPIServer | undefined;
  const sa = new ServiceAccountAuthenticator({
    issuers: [ISSUER],
    keys: issuer.verificationKeys,
    serviceAccounts: storeObjectGetter(() => server?.store('serviceaccounts')),
    secrets: storeObjectGetter(() => server?.store('secrets')),
  });
  const tokens = TokenFileAuthenticator.fromCSV('admin-token,admin,1,system:masters\n', 'tokens', { apiAudiences: apiAudiences ?? [] });
  server = new GenericAPIServer({
    storage: new MemoryStorage(),
    resources: [Namespace, Secret, ServiceAccount],
    authentication: { authenticator: withAuthenticatedGroup(unionAuthenticator(tokens, sa)), ...(apiAudiences ? { apiAudiences } : {}) },
    serviceAccountTokens: { issuer },
    ...(admission ? { admission } : {}),
    ...(auditTo ? { audit: { backend: new LogAuditBackend(auditTo), policy: policyAtLevel('RequestResponse') } } : {}),
  });
  await server.start();
  const http = await listen(server.handler);
  running.push({ server, http });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN) => {
    const res = await fetch(`${http.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : undefined, headers: res.headers };
  };
  const createSA = async (name: string) =>
    (await call('POST', SA_PATH, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } })).body;
  const requestToken = (name: string, spec: Record<string, unknown> = {}, path = `${SA_PATH}/${name}/token`) =>
    call('POST', path, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  const whoami = (token: string) =>
    call(
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      {
        authorization: `Bearer ${token}`,
      },
    );
  return { url: http.url, server, issuer, call, createSA, requestToken, whoami };
}

describe('TokenRequest (serviceaccounts/<name>/token)', () => {
  it('issues a token for an existing account that authenticates as it until the account is deleted or recreated', async () => {
    const { createSA, requestToken, whoami, call } = await start();
    const sa = await createSA('x');
    const res = await requestToken('x', { expirationSeconds: 600 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'x', namespace: 'default' },
      spec: { audiences: [ISSUER], expirationSeconds: 600 },
    });
    const token = res.body.status.token as string;
    const claims = decodeJwt(token);
    expect(claims['kubernetes.io']).toEqual({ namespace: 'default', serviceaccount: { name: 'x', uid: sa.metadata.uid } });
    expect(res.body.status.expirationTimestamp).toBe(new Date((claims.exp as number) * 1000).toISOString().replace('.000Z', 'Z'));

    const me = await whoami(token);
    expect(me.status).toBe(201);
    expect(me.body.status.userInfo).toMatchObject({
      username: 'system:serviceaccount:default:x',
      uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
    });

    expect((await call('DELETE', `${SA_PATH}/x`)).status).toBe(200);
    const gone = await whoami(token);
    expect(gone.status).toBe(401);
    expect(gone.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    await createSA('x');
    expect((await whoami(token)).status).toBe(401);
    // A token for the new account works.
    expect((await whoami((await requestToken('x')).body.status.token)).status).toBe(201);
  });

  it('answers 404 for an account that does not exist, 422 for a too short expiration, and caps a long one with a warning', async () => {
    const { createSA, requestToken } = await start({ maxExpirationSeconds: 7200 });
    const missing = await requestToken('nobody');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'serviceaccounts "nobody" not found' });
    await createSA('x');
    const short = await requestToken('x', { expirationSeconds: 599 });
    expect(short.status).toBe(422);
    expect(short.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        message: 'Invalid value: 599: may not specify a duration less than 10 minutes',
      },
    ]);
    const long = await requestToken('x', { expirationSeconds: 86_400 });
    expect(long.status).toBe(201);
    expect(long.body.spec.expirationSeconds).toBe(7200);
    expect(long.headers.get('warning')).toContain('requested expiration of 86400 seconds shortened to 7200 seconds');
    const typed = await requestToken('x', { expirationSeconds: 'soon' });
    expect(typed.status).toBe(400);
    // Go clients send a nil slice and nil pointers as null (kubectl 1.27 create token does): unset.
    const nulls = await requestToken('x', { audiences: null, expirationSeconds: null, boundObjectRef: null });
    expect(nulls.status).toBe(201);
    expect(nulls.body.spec).toEqual({ audiences: [ISSUER], expirationSeconds: 3600 });
  });

  it('binds a token to a Secret that exists (uid checked), refuses other kinds, and the token dies with the Secret', async () => {
    const { call, createSA, requestToken, whoami } = await start();
    await createSA('x');
    const secret = (await call('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }))
      .body;
    const ref = { kind: 'Secret', apiVersion: 'v1', name: 's', uid: secret.metadata.uid };
    const res = await requestToken('x', { boundObjectRef: ref });
    expect(res.status).toBe(201);
    const token = res.body.status.token as string;
    expect((decodeJwt(token)['kubernetes.io'] as Json).secret).toEqual({ name: 's', uid: secret.metadata.uid });
    expect((await whoami(token)).status).toBe(201);

    const wrongUid = await requestToken('x', { boundObjectRef: { ...ref, uid: 'other' } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.message).toContain('the UID in the bound object reference (other) does not match the UID in record');
    expect((await requestToken('x', { boundObjectRef: { ...ref, name: 'none' } })).status).toBe(404);
    const pod = await requestToken('x', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } });
    expect(pod.status).toBe(400);
    expect(pod.body.message).toBe('cannot bind token to object of type /v1, Kind=Pod');
    expect((await requestToken('x', { boundObjectRef: { kind: 'ConfigMap', name: 'c' } })).status).toBe(400);
    // Bad bodies are 4xx Statuses, never a 500.
    for (const spec of [
      { boundObjectRef: { kind: 'Secret' } },
      { boundObjectRef: 'Secret' },
      { audiences: [1] },
      { expirationSeconds: 1.5 },
    ]) {
      const bad = await requestToken('x', spec);
      expect([400, 404, 422], JSON.stringify(bad.body)).toContain(bad.status);
      expect(bad.body.kind).toBe('Status');
    }
    const notJson = await call('POST', `${SA_PATH}/x/token`, undefined, { ...ADMIN });
    expect(notJson.status).toBe(400);

    await call('DELETE', '/api/v1/namespaces/default/secrets/s');
    expect((await whoami(token)).status).toBe(401);
  });

  it('is only POST (405 for GET) and only where ServiceAccount is served with an issuer (404 otherwise)', async () => {
    const { call, createSA } = await start();
    await createSA('x');
    expect((await call('GET', `${SA_PATH}/x/token`)).status).toBe(405);
    expect((await call('POST', `${SA_PATH}/x/other`, {})).status).toBe(404);
    const plain = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, ServiceAccount] });
    await plain.start();
    const http = await listen(plain.handler);
    running.push({ server: plain, http });
    const res = await fetch(`${http.url}${SA_PATH}/x/token`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});

describe('forged tokens over HTTP', () => {
  it("alg none, HS256 keyed with the public key, and an edited payload are 401 with kube's Status", async () => {
    const { createSA, requestToken, whoami, issuer } = await start();
    await createSA('x');
    const token = (await requestToken('x')).body.status.token as string;
    const claims = decodeJwt(token);
    const none = `${base64url.encode(JSON.stringify({ alg: 'none' }))}.${base64url.encode(JSON.stringify(claims))}.`;
    const publicPEM = issuer.keys.signing.key.export({ type: 'spki', format: 'pem' }) as string;
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: issuer.keys.signing.kid })
      .sign(new TextEncoder().encode(publicPEM));
    const [h, , sig] = token.split('.');
    const edited = `${h}.${base64url.encode(JSON.stringify({ ...claims, sub: 'system:serviceaccount:kube-system:admin' }))}.${sig}`;
    for (const forged of [none, hs256, edited]) {
      const res = await whoami(forged);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
    expect((await whoami(token)).status).toBe(201);
  });
});

describe('API audiences', () => {
  it("are a TokenRequest's default audiences, and the only ones the server accepts", async () => {
    const { createSA, requestToken, whoami } = await start({ apiAudiences: ['https://api.example'] });
    await createSA('x');
    const res = await requestToken('x');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.spec.audiences).toEqual(['https://api.example']);
    expect(decodeJwt(res.body.status.token).aud).toEqual(['https://api.example']);
    expect((await whoami(res.body.status.token)).status).toBe(201);
    const other = (await requestToken('x', { audiences: [ISSUER] })).body.status.token;
    expect((await whoami(other)).status).toBe(401);
  });
});

describe('admission', () => {
  it('sees the TokenRequest as a CREATE of serviceaccounts/token (kind TokenRequest) and may refuse it', async () => {
    const seen: AdmissionAttributes[] = [];
    const admission: Admission = {
      async admit(attrs) {
        seen.push(attrs);
      },
      async validate(attrs) {
        if ((attrs.object as Json)?.spec?.audiences?.includes('forbidden'))
          throw newForbidden({ group: '', resource: 'serviceaccounts' }, attrs.name, 'no');
      },
    };
    const { createSA, requestToken } = await start({ admission });
    await createSA('x');
    expect((await requestToken('x', { audiences: ['ok'] })).status).toBe(201);
    expect(seen.at(-1)).toMatchObject({
      operation: 'CREATE',
      kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      resource: { group: '', version: 'v1', resource: 'serviceaccounts' },
      subresource: 'token',
      namespace: 'default',
      name: 'x',
      userInfo: { name: 'admin' },
    });
    expect((await requestToken('x', { audiences: ['forbidden'] })).status).toBe(403);
  });
});

describe('audit', () => {
  it('records the TokenRequest response without its token, and no request made with it carries it', async () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    const { createSA, requestToken, whoami } = await start({ auditTo: out });
    await createSA('x');
    const res = await requestToken('x');
    const token = res.body.status.token as string;
    expect((await whoami(token)).status).toBe(201);
    await new Promise<void>((resolve) => setImmediate(resolve));
    const log = lines.join('');
    expect(log).toContain(res.body.status.expirationTimestamp);
    expect(log).toContain('system:serviceaccount:default:x');
    expect(log).not.toContain(token.split('.')[2]);
  });
});

describe('service-account issuer discovery', () => {
  it('serves the OpenID configuration and a JWK Set that verifies issued tokens', async () => {
    const { call, createSA, requestToken } = await start();
    const config = await call('GET', '/.well-known/openid-configuration');
    expect(config.status).toBe(200);
    expect(config.body).toEqual({
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(config.headers.get('cache-control')).toBe('public, max-age=3600');
    const jwks = await call('GET', '/openid/v1/jwks');
    expect(jwks.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(jwks.body.keys).toHaveLength(1);
    expect(Object.keys(jwks.body.keys[0]).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    await createSA('x');
    const token = (await requestToken('x', { audiences: ['vault'] })).body.status.token as string;
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.body), { issuer: ISSUER, audience: 'vault' });
    expect(payload.sub).toBe('system:serviceaccount:default:x');
  });
});

describe('discovery', () => {
  it('lists serviceaccounts/token (kind authentication.k8s.io/v1 TokenRequest, create) as kube does', async () => {
    const { call } = await start();
    const legacy = await call('GET', '/api/v1');
    expect(legacy.body.resources.filter((r: Json) => r.name.startsWith('serviceaccounts'))).toEqual([
      expect.objectContaining({ name: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'] }),
      {
        name: 'serviceaccounts/token',
        singularName: '',
        namespaced: true,
        group: 'authentication.k8s.io',
        version: 'v1',
        kind: 'TokenRequest',
        verbs: ['create'],
      },
    ]);
    const aggregated = await call('GET', '/api', undefined, {
      ...ADMIN,
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const sa = aggregated.body.items[0].versions[0].resources.find((r: Json) => r.resource === 'serviceaccounts');
    expect(sa.subresources).toEqual([
      { subresource: 'token', responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] },
    ]);
  });
});

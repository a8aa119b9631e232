import { createPublicKey } from 'node:crypto';
import { FlattenedSign, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCAuthenticator, type OIDCOptions } from './oidc.ts';
import { startTestOIDCIssuer, type TestOIDCIssuer } from './test-support/oidc-issuer.ts';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

describe('OIDCAuthenticator against a real issuer over HTTPS', () => {
  let issuer: TestOIDCIssuer;
  const authenticators: OIDCAuthenticator[] = [];

  /** An authenticator for the test issuer, trusting its CA, once discovery is done. */
  async function oidc(options: Partial<OIDCOptions> = {}): Promise<OIDCAuthenticator> {
    const a = new OIDCAuthenticator({ issuerURL: issuer.url, clientID: 'kubernetes', ca: issuer.ca, ...options });
    authenticators.push(a);
    await a.ready();
    return a;
  }

  /** The error a token gets, checking that the token itself is never part of the message. */
  async function failure(a: OIDCAuthenticator, token: string): Promise<string> {
    const err = await a.authenticate(bearer(token)).then(
      (r) => new Error(`authenticated as ${JSON.stringify(r)}`),
      (e: Error) => e,
    );
    expect(err.message).not.toContain(token);
    expect(err.message).not.toContain(token.split('.')[2] || '<no signature>');
    return err.message;
  }

  beforeAll(async () => {
    issuer = await startTestOIDCIssuer();
  });
  afterAll(async () => {
    for (const a of authenticators) a.close();
    await issuer?.close();
  });

  it('a valid ID token is the user of its username claim, with kube’s default <issuer># prefix, and its groups prefixed', async () => {
    const a = await oidc({ groupsClaim: 'groups', groupsPrefix: 'oidc:' });
    const token = await issuer.sign({ sub: 'alice', groups: ['dev', 'ops'] });
    expect(await a.authenticate(bearer(token))).toEqual({ user: { name: `${issuer.url}#alice`, groups: ['oidc:dev', 'oidc:ops'] } });
    expect(issuer.discoveryFetches).toBeGreaterThanOrEqual(1);
  });

  it('maps username prefix, a string groups claim, a uid claim, and accepts any configured audience', async () => {
    const a = await oidc({
      usernameClaim: 'preferred_username',
      usernamePrefix: 'oidc:',
      groupsClaim: 'role',
      uidClaim: 'oid',
      audiences: ['other'],
    });
    const token = await issuer.sign({ aud: ['x', 'other'], preferred_username: 'bob', role: 'admin', oid: 'u-1' });
    expect((await a.authenticateToken(token))?.user).toEqual({ name: 'oidc:bob', groups: ['admin'], uid: 'u-1' });
    // '' is no prefix; an email username has no prefix by default.
    const noPrefix = await oidc({ usernamePrefix: '' });
    expect((await noPrefix.authenticateToken(await issuer.sign()))?.user.name).toBe('alice');
    const email = await oidc({ usernameClaim: 'email' });
    expect((await email.authenticateToken(await issuer.sign({ email: 'a@example.com' })))?.user.name).toBe('a@example.com');
    expect((await email.authenticateToken(await issuer.sign({ email: 'a@example.com', email_verified: true })))?.user.name).toBe(
      'a@example.com',
    );
    // A groups claim of another type is an error; null or absent is no groups.
    const groups = await oidc({ groupsClaim: 'groups' });
    expect((await groups.authenticateToken(await issuer.sign({ groups: null })))?.user.groups).toEqual([]);
    expect((await groups.authenticateToken(await issuer.sign()))?.user.groups).toEqual([]);
    expect(await failure(groups, await issuer.sign({ groups: [1, 2] }))).toBe(
      'oidc: parse groups claim "groups": not a string or an array of strings',
    );
    expect(await failure(groups, await issuer.sign({ sub: 42 as unknown as string }))).toBe(
      'oidc: parse username claims "sub": not a string',
    );
    expect(await failure(groups, await issuer.sign({ sub: undefined }))).toBe('oidc: parse username claims "sub": claim not present');
  });

  it('no opinion for what is not this issuer’s JWT, so a union can try the next authenticator', async () => {
    const a = await oidc();
    expect(await a.authenticateToken('not-a-jwt')).toBeNull();
    expect(await a.authenticateToken('a.b.c')).toBeNull();
    expect(await a.authenticateToken(`${b64({ alg: 'RS256' })}.${b64({ iss: issuer.url })}`)).toBeNull();
    expect(await a.authenticateToken(await issuer.sign({ iss: 'https://other.example' }))).toBeNull();
    expect(await a.authenticate({ headers: {} })).toBeNull();
    // Through the request authenticator a bearer token nobody knows is kube's invalid bearer token.
    expect(await failure(a, await issuer.sign({ iss: `${issuer.url}/` }))).toBe('invalid bearer token');
  });

  it('not authenticated: a signature by another key under the issuer’s kid', async () => {
    const a = await oidc();
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await issuer.sign({}, { key: privateKey });
    expect(await failure(a, forged)).toBe('oidc: verify token: failed to verify signature: signature verification failed');
    // A payload swapped under a genuine signature is the same forgery.
    const [h, , s] = (await issuer.sign()).split('.');
    expect(await failure(a, `${h}.${b64({ iss: issuer.url, aud: 'kubernetes', sub: 'root', exp: now() + 60 })}.${s}`)).toBe(
      'oidc: verify token: failed to verify signature: signature verification failed',
    );
  });

  it('not authenticated: expired (no leeway), without exp, and not yet valid (past one minute of leeway)', async () => {
    const a = await oidc();
    expect(await failure(a, await issuer.sign({ exp: now() - 2 }))).toMatch(/^oidc: verify token: oidc: token is expired \(Token Expiry: /);
    expect(await failure(a, await issuer.sign({ exp: undefined }))).toBe(
      'oidc: verify token: oidc: token is expired (it has no exp claim)',
    );
    expect(await failure(a, await issuer.sign({ exp: '9999999999' as unknown as number }))).toBe(
      'oidc: verify token: oidc: failed to unmarshal claims: exp must be a number',
    );
    expect(await failure(a, await issuer.sign({ nbf: now() + 120 }))).toMatch(/before the nbf \(not before\) time/);
    // Within go-oidc's minute of leeway a token is already good.
    expect((await a.authenticateToken(await issuer.sign({ nbf: now() + 30 })))?.user.name).toBe(`${issuer.url}#alice`);
  });

  it('not authenticated: a token for another audience', async () => {
    const a = await oidc();
    expect(await failure(a, await issuer.sign({ aud: 'someone-else' }))).toBe(
      'oidc: verify token: oidc: expected audience ["kubernetes"] got ["someone-else"]',
    );
    expect(await failure(a, await issuer.sign({ aud: undefined }))).toBe(
      'oidc: verify token: oidc: failed to unmarshal claims: aud must be a string or an array of strings',
    );
  });

  it('not authenticated: a token of another issuer, and an issuer whose discovery names another issuer', async () => {
    const a = await oidc();
    expect(await a.authenticateToken(await issuer.sign({ iss: 'https://evil.example' }))).toBeNull();
    const liar = await startTestOIDCIssuer({ discoveryIssuer: () => 'https://evil.example' });
    try {
      const b = new OIDCAuthenticator({ issuerURL: liar.url, clientID: 'kubernetes', ca: liar.ca, retryIntervalMs: 60_000 });
      authenticators.push(b);
      expect(await failure(b, await liar.sign())).toBe('oidc: authenticator not initialized');
      expect(b.discoveryError?.message).toBe(
        `oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(liar.url)} got "https://evil.example"`,
      );
      expect(liar.jwksFetches).toBe(0);
    } finally {
      await liar.close();
    }
  });

  it('not authenticated: an unencoded (b64: false) payload, even signed by the issuer’s key', async () => {
    const a = await oidc();
    const claims = b64({ iss: issuer.url, aud: 'kubernetes', sub: 'alice', exp: now() + 600 });
    const jws = await new FlattenedSign(new TextEncoder().encode(claims))
      .setProtectedHeader({ alg: 'RS256', kid: issuer.kid, b64: false, crit: ['b64'] })
      .sign(issuer.privateKey);
    expect(await failure(a, `${jws.protected}.${claims}.${jws.signature}`)).toBe(
      'oidc: verify token: oidc: internal error, payload parsed did not match previous payload',
    );
  });

  it('discoveryURL: an issuer reached at another address; its discovery document must still name the issuer URL', async () => {
    const remote = await startTestOIDCIssuer({ discoveryIssuer: () => 'https://idp.example' });
    try {
      const discoveryURL = `${remote.url}/.well-known/openid-configuration`;
      const a = new OIDCAuthenticator({
        issuerURL: 'https://idp.example',
        discoveryURL,
        clientID: 'kubernetes',
        ca: remote.ca,
        usernamePrefix: '',
      });
      authenticators.push(a);
      await a.ready();
      expect((await a.authenticateToken(await remote.sign({ iss: 'https://idp.example' })))?.user.name).toBe('alice');
      const wrong = new OIDCAuthenticator({
        issuerURL: 'https://other.example',
        discoveryURL,
        clientID: 'k',
        ca: remote.ca,
        retryIntervalMs: 60_000,
      });
      authenticators.push(wrong);
      expect(await failure(wrong, await remote.sign({ iss: 'https://other.example' }))).toBe('oidc: authenticator not initialized');
      expect(wrong.discoveryError?.message).toBe(
        'oidc: issuer did not match the issuer returned by provider, expected "https://other.example" got "https://idp.example"',
      );
      expect(() => new OIDCAuthenticator({ issuerURL: 'https://idp.example', discoveryURL: 'http://x/', clientID: 'k' })).toThrow(
        'oidc: discovery URL "http://x/" must be an https URL',
      );
    } finally {
      await remote.close();
    }
  });

  it('not authenticated: alg none, hand-built', async () => {
    const a = await oidc();
    const claims = { iss: issuer.url, aud: 'kubernetes', sub: 'root', exp: now() + 600 };
    for (const alg of ['none', 'None', 'NONE']) {
      expect(await failure(a, `${b64({ alg, kid: issuer.kid })}.${b64(claims)}.`)).toBe(
        `oidc: verify token: oidc: id token signed with unsupported algorithm, expected [RS256] got "${alg}"`,
      );
    }
  });

  it('not authenticated: HS256 signed with the issuer’s public key as the HMAC secret', async () => {
    const a = await oidc();
    const pem = createPublicKey({ key: issuer.publicJWK, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    for (const secret of [Buffer.from(pem), Buffer.from(JSON.stringify(issuer.publicJWK))]) {
      const token = await new SignJWT({ iss: issuer.url, aud: 'kubernetes', sub: 'root', exp: now() + 600 })
        .setProtectedHeader({ alg: 'HS256', kid: issuer.kid })
        .sign(secret);
      expect(await failure(a, token)).toBe(
        'oidc: verify token: oidc: id token signed with unsupported algorithm, expected [RS256] got "HS256"',
      );
    }
    // HMAC cannot even be configured.
    expect(() => new OIDCAuthenticator({ issuerURL: issuer.url, clientID: 'k', signingAlgorithms: ['RS256', 'HS256'] })).toThrow(
      'oidc: unsupported signing alg: "HS256"',
    );
  });

  it('not authenticated: a required claim missing or different', async () => {
    const a = await oidc({ requiredClaims: { hd: 'example.com', tier: 'gold' } });
    expect((await a.authenticateToken(await issuer.sign({ hd: 'example.com', tier: 'gold' })))?.user.name).toBe(`${issuer.url}#alice`);
    expect(await failure(a, await issuer.sign({ hd: 'example.com' }))).toBe('oidc: required claim tier not present in ID token');
    expect(await failure(a, await issuer.sign({ hd: 'evil.com', tier: 'gold' }))).toBe(
      'oidc: required claim hd value does not match. Got = evil.com, want = example.com',
    );
    expect(await failure(a, await issuer.sign({ hd: ['example.com'], tier: 'gold' }))).toBe('oidc: parse claim hd: not a string');
    // A claim name Object.prototype happens to have is not present in the token.
    const proto = await oidc({ requiredClaims: { constructor: 'x' } });
    expect(await failure(proto, await issuer.sign())).toBe('oidc: required claim constructor not present in ID token');
    const protoUser = await oidc({ usernameClaim: 'toString' });
    expect(await failure(protoUser, await issuer.sign())).toBe('oidc: parse username claims "toString": claim not present');
  });

  it('not authenticated: an email username whose email_verified is false (or not a boolean)', async () => {
    const a = await oidc({ usernameClaim: 'email' });
    expect(await failure(a, await issuer.sign({ email: 'a@example.com', email_verified: false }))).toBe('oidc: email not verified');
    expect(await failure(a, await issuer.sign({ email: 'a@example.com', email_verified: 'true' }))).toBe(
      "oidc: parse 'email_verified' claim: not a boolean",
    );
  });

  it('a token that fails the claim checks never makes the authenticator fetch keys', async () => {
    const a = await oidc({ jwksCooldownMs: 0 });
    const before = issuer.jwksFetches;
    await failure(a, await issuer.sign({ exp: now() - 60 }, { kid: 'unknown-kid' }));
    await failure(a, await issuer.sign({ aud: 'x' }, { kid: 'unknown-kid-2' }));
    expect(issuer.jwksFetches).toBe(before);
  });

  it('key rotation: a token with the new kid verifies after a refetch; the old key is gone; the cooldown bounds refetches', async () => {
    const rotating = await startTestOIDCIssuer();
    try {
      const a = new OIDCAuthenticator({ issuerURL: rotating.url, clientID: 'kubernetes', ca: rotating.ca, jwksCooldownMs: 0 });
      const slow = new OIDCAuthenticator({ issuerURL: rotating.url, clientID: 'kubernetes', ca: rotating.ca });
      authenticators.push(a, slow);
      await Promise.all([a.ready(), slow.ready()]);
      const old = await rotating.sign({ sub: 'before' });
      expect((await a.authenticateToken(old))?.user.name).toBe(`${rotating.url}#before`);
      expect((await slow.authenticateToken(old))?.user.name).toBe(`${rotating.url}#before`);
      expect(rotating.jwksFetches).toBe(2);
      // Cached: no fetch for a known kid.
      await a.authenticateToken(old);
      expect(rotating.jwksFetches).toBe(2);

      await rotating.rotate();
      const fresh = await rotating.sign({ sub: 'after' });
      expect((await a.authenticateToken(fresh))?.user.name).toBe(`${rotating.url}#after`);
      expect(rotating.jwksFetches).toBe(3);
      // The old key left the key set: its tokens no longer verify.
      await expect(a.authenticateToken(old)).rejects.toThrow(
        'oidc: verify token: failed to verify signature: no applicable key found in the JSON Web Key Set',
      );
      // Within the default 30 s cooldown an unknown kid does not fetch again (so made-up kids cannot flood the issuer).
      const fetches = rotating.jwksFetches;
      await expect(slow.authenticateToken(fresh)).rejects.toThrow('no applicable key found in the JSON Web Key Set');
      expect(rotating.jwksFetches).toBe(fetches);
    } finally {
      await rotating.close();
    }
  });

  it('an issuer whose TLS certificate is not trusted (no CA given) is an error, not a crash; with the CA it works', async () => {
    const errors: Error[] = [];
    const untrusted = new OIDCAuthenticator({
      issuerURL: issuer.url,
      clientID: 'kubernetes',
      retryIntervalMs: 60_000,
      onDiscoveryError: (e) => errors.push(e),
    });
    authenticators.push(untrusted);
    const token = await issuer.sign();
    expect(await failure(untrusted, token)).toBe('oidc: authenticator not initialized');
    expect(errors.length).toBe(1);
    expect(untrusted.discoveryError?.message).toMatch(/self[- ]signed certificate|unable to verify|unable to get local issuer/);
    expect((await (await oidc()).authenticateToken(token))?.user.name).toBe(`${issuer.url}#alice`);
  });

  it('a broken discovery answer is an error, not a crash: non-200, not JSON, an http jwks_uri, a body past 4 MiB', async () => {
    const cases: [{ status: number; body: string }, string | RegExp][] = [
      [
        { status: 500, body: 'boom' },
        /^oidc: discovery https:\/\/127\.0\.0\.1:\d+\/\.well-known\/openid-configuration: 500 Internal Server Error$/,
      ],
      [{ status: 200, body: '{not json' }, /^oidc: failed to decode provider discovery object: /],
      [{ status: 200, body: 'X' }, /^oidc: failed to decode provider discovery object: /],
    ];
    for (const [response, message] of cases) {
      const broken = await startTestOIDCIssuer({ discoveryResponse: () => response });
      try {
        const a = new OIDCAuthenticator({ issuerURL: broken.url, clientID: 'kubernetes', ca: broken.ca, retryIntervalMs: 60_000 });
        authenticators.push(a);
        expect(await failure(a, await broken.sign())).toBe('oidc: authenticator not initialized');
        expect(a.discoveryError?.message).toMatch(message);
      } finally {
        await broken.close();
      }
    }
    const httpKeys = await startTestOIDCIssuer({
      discoveryResponse: (url) => ({ status: 200, body: JSON.stringify({ issuer: url, jwks_uri: url.replace('https:', 'http:') }) }),
    });
    const huge = await startTestOIDCIssuer({
      discoveryResponse: (url) => ({ status: 200, body: JSON.stringify({ issuer: url, pad: 'x'.repeat(5 << 20) }) }),
    });
    try {
      const a = new OIDCAuthenticator({ issuerURL: httpKeys.url, clientID: 'kubernetes', ca: httpKeys.ca, retryIntervalMs: 60_000 });
      const b = new OIDCAuthenticator({ issuerURL: huge.url, clientID: 'kubernetes', ca: huge.ca, retryIntervalMs: 60_000 });
      authenticators.push(a, b);
      expect(await failure(a, await httpKeys.sign())).toBe('oidc: authenticator not initialized');
      expect(a.discoveryError?.message).toMatch(/^oidc: provider's jwks_uri must be an https URL, got "http:/);
      expect(await failure(b, await huge.sign())).toBe('oidc: authenticator not initialized');
      expect(b.discoveryError?.message).toMatch(/is larger than 4194304 bytes/);
    } finally {
      await httpKeys.close();
      await huge.close();
    }
  });

  it('discovery is retried while the issuer is unreachable, and close() stops the retries', async () => {
    const late = await startTestOIDCIssuer();
    const url = late.url;
    const ca = late.ca;
    await late.close();
    // Nothing listens at url now; the authenticator keeps trying every retryIntervalMs.
    const errors: Error[] = [];
    const a = new OIDCAuthenticator({
      issuerURL: url,
      clientID: 'kubernetes',
      ca,
      retryIntervalMs: 50,
      onDiscoveryError: (e) => errors.push(e),
    });
    authenticators.push(a);
    await expect(a.authenticateToken(`${b64({ alg: 'RS256' })}.${b64({ iss: url })}.x`)).rejects.toThrow(
      'oidc: authenticator not initialized',
    );
    await expect.poll(() => errors.length).toBeGreaterThanOrEqual(2);
    a.close();
    const count = errors.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(errors.length).toBe(count);
  });

  it('API audiences: a request asking for audiences must meet them', async () => {
    const a = await oidc({ apiAudiences: ['https://kapi.example'] });
    const token = await issuer.sign();
    expect(await a.authenticateToken(token, ['other'])).toBeNull();
    expect(await a.authenticateToken(token, ['https://kapi.example', 'x'])).toEqual({
      user: { name: `${issuer.url}#alice`, groups: [] },
      audiences: ['https://kapi.example'],
    });
  });

  it('refuses bad options with kube’s messages', () => {
    const make = (o: Partial<OIDCOptions>) => () => new OIDCAuthenticator({ issuerURL: 'https://issuer.example', clientID: 'k', ...o });
    expect(make({ issuerURL: 'http://issuer.example' })).toThrow(
      `'oidc-issuer-url' ("http://issuer.example") has invalid scheme ("http"), require 'https'`,
    );
    expect(make({ issuerURL: 'https://issuer.example?x=1' })).toThrow('must not contain a query');
    expect(make({ issuerURL: 'https://issuer.example#f' })).toThrow('must not contain a fragment');
    expect(make({ issuerURL: 'https://u:p@issuer.example' })).toThrow('must not contain a username or password');
    expect(make({ clientID: '' })).toThrow('oidc: a client id (or at least one audience) is required');
    expect(make({ signingAlgorithms: ['none'] })).toThrow('oidc: unsupported signing alg: "none"');
    expect(make({ usernameClaim: '' })).toThrow('no username claim provided');
  });
});

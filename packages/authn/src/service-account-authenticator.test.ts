import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { FakeClock, type KubeObject } from '@kapi/apimachinery';
import { base64url, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { type ObjectGetter, ServiceAccountAuthenticator } from './service-account-authenticator.ts';
import { generateServiceAccountKeyPEM, keyIdOf, serviceAccountKeySet } from './service-account-keys.ts';
import { ServiceAccountTokenIssuer } from './service-account-token-issuer.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const PEM = generateServiceAccountKeyPEM('RS256');
const EC_PEM = generateServiceAccountKeyPEM('ES256');

/** Objects by namespace/name, read as a cache would (`stale` answers non-fresh reads from an older copy). */
class Objects {
  readonly live = new Map<string, KubeObject>();
  stale: Map<string, KubeObject> | undefined;
  freshReads = 0;
  put(namespace: string, name: string, uid: string, extra: Record<string, unknown> = {}): void {
    this.live.set(`${namespace}/${name}`, { apiVersion: 'v1', kind: 'X', metadata: { name, namespace, uid }, ...extra } as KubeObject);
  }
  readonly get: ObjectGetter = async (namespace, name, options) => {
    if (options?.fresh) this.freshReads++;
    const from = !options?.fresh && this.stale ? this.stale : this.live;
    return from.get(`${namespace}/${name}`) ?? null;
  };
}

function setup(opts: { pem?: string; legacy?: boolean; audiences?: string[] } = {}) {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const issuer = new ServiceAccountTokenIssuer({ issuer: ISSUER, key: opts.pem ?? PEM, clock });
  const sas = new Objects();
  const pods = new Objects();
  const secrets = new Objects();
  sas.put('default', 'x', 'uid-x');
  const authn = new ServiceAccountAuthenticator({
    issuers: [ISSUER],
    keys: issuer.verificationKeys,
    serviceAccounts: sas.get,
    pods: pods.get,
    secrets: secrets.get,
    clock,
    ...(opts.legacy ? { legacy: true } : {}),
    ...(opts.audiences ? { audiences: opts.audiences } : {}),
  });
  const issue = (extra: Partial<Parameters<ServiceAccountTokenIssuer['issue']>[0]> = {}) =>
    issuer.issue({ namespace: 'default', serviceAccount: { name: 'x', uid: 'uid-x' }, audiences: [ISSUER], ...extra });
  const check = (token: string, audiences?: string[]) =>
    authn.authenticate({ headers: { authorization: `Bearer ${token}` }, ...(audiences ? { audiences } : {}) });
  return { clock, issuer, sas, pods, secrets, authn, issue, check };
}

/** The rejection message of a check that must fail (the token itself must never appear in it). */
async function refused(p: Promise<unknown>, token: string): Promise<string> {
  const err = await p.then(
    (v) => {
      throw new Error(`accepted: ${JSON.stringify(v)}`);
    },
    (e: unknown) => e as Error,
  );
  expect(err.message).not.toContain(token);
  const signature = token.split('.')[2];
  if (signature) expect(err.message).not.toContain(signature);
  return err.message;
}

/** A token with kapi's claims signed by `sign` (another key, another alg) for the forgery cases. */
async function craft(claims: Record<string, unknown>, key: KeyObject | Uint8Array, alg: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg }).sign(key);
}

describe('ServiceAccountTokenIssuer', () => {
  it("issues kube's bound token: header kid and alg, iss, sub, aud, iat = nbf, exp, jti and the kubernetes.io claim", async () => {
    const { issuer, issue, clock } = setup();
    const { token, expirationTimestamp } = await issue({ expirationSeconds: 600, boundObject: { kind: 'Pod', name: 'p', uid: 'uid-p' } });
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: 'RS256', kid: issuer.keys.signing.kid });
    const now = clock.now() / 1000;
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: 'system:serviceaccount:default:x',
      aud: [ISSUER],
      iat: now,
      nbf: now,
      exp: now + 600,
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'x', uid: 'uid-x' }, pod: { name: 'p', uid: 'uid-p' } },
    });
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(expirationTimestamp).toBe('2026-01-01T00:10:00Z');
    expect(decodeJwt((await issue()).token).exp).toBe(now + 3600);
  });

  it("uses kube's key id (base64url SHA-256 of the public key's DER) and ES256 for an EC P-256 key", async () => {
    const { issuer, issue } = setup({ pem: EC_PEM });
    expect(issuer.keys.signing.kid).toBe(keyIdOf(issuer.keys.signing.key));
    expect(decodeProtectedHeader((await issue()).token).alg).toBe('ES256');
  });

  it('refuses to issue a token without audiences', async () => {
    const { issue } = setup();
    await expect(issue({ audiences: [] })).rejects.toThrow('needs at least one audience');
  });

  it('caps the expiration at maxExpirationSeconds', async () => {
    const clock = new FakeClock(0);
    const issuer = new ServiceAccountTokenIssuer({ issuer: ISSUER, key: PEM, clock, maxExpirationSeconds: 1000 });
    const { token } = await issuer.issue({
      namespace: 'n',
      serviceAccount: { name: 'a', uid: 'u' },
      audiences: ['x'],
      expirationSeconds: 99_999,
    });
    expect(decodeJwt(token).exp).toBe(1000);
  });

  it('serves a JWK Set that verifies its tokens (createLocalJWKSet), with the old keys of a rotation', async () => {
    const old = serviceAccountKeySet(EC_PEM);
    const set = serviceAccountKeySet(PEM, [old.signingKey.export({ type: 'pkcs8', format: 'pem' }) as string]);
    const issuer = new ServiceAccountTokenIssuer({ issuer: ISSUER, key: set });
    const jwks = await issuer.jwks();
    expect(jwks.keys.map((k) => [k.kid, k.alg, k.use, k.kty])).toEqual([
      [set.signing.kid, 'RS256', 'sig', 'RSA'],
      [old.signing.kid, 'ES256', 'sig', 'EC'],
    ]);
    expect(JSON.stringify(jwks)).not.toMatch(/"d"|"p"|"q"/);
    const { token } = await issuer.issue({ namespace: 'default', serviceAccount: { name: 'x', uid: 'u' }, audiences: ['a'] });
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: ISSUER, audience: 'a' });
    expect(payload.sub).toBe('system:serviceaccount:default:x');
  });
});

describe('ServiceAccountAuthenticator', () => {
  it('authenticates a bound token as system:serviceaccount:<ns>:<name> with its groups, uid and credential id', async () => {
    const { issue, check } = setup();
    const { token } = await issue();
    const jti = decodeJwt(token).jti;
    expect(await check(token)).toEqual({
      user: {
        name: 'system:serviceaccount:default:x',
        uid: 'uid-x',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
      },
      audiences: [ISSUER],
    });
  });

  it('adds the pod name and uid of a pod-bound token, and refuses it once the pod is gone or replaced', async () => {
    const { issue, check, pods } = setup();
    pods.put('default', 'p', 'uid-p');
    const { token } = await issue({ boundObject: { kind: 'Pod', name: 'p', uid: 'uid-p' } });
    const res = await check(token);
    expect(res?.user.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['p'],
      'authentication.kubernetes.io/pod-uid': ['uid-p'],
    });
    pods.put('default', 'p', 'uid-p2');
    expect(await refused(check(token), token)).toContain('pod UID (uid-p2) does not match claim (uid-p)');
    pods.live.clear();
    expect(await refused(check(token), token)).toContain('pod default/p has been deleted');
  });

  it('refuses a secret-bound token once the secret is deleted, and a node-bound one when nodes cannot be checked', async () => {
    const { issue, check, secrets } = setup();
    secrets.put('default', 's', 'uid-s');
    const { token } = await issue({ boundObject: { kind: 'Secret', name: 's', uid: 'uid-s' } });
    expect((await check(token))?.user.name).toBe('system:serviceaccount:default:x');
    secrets.live.clear();
    expect(await refused(check(token), token)).toContain('secret default/s has been deleted');
    const node = (await issue({ boundObject: { kind: 'Node', name: 'n', uid: 'uid-n' } })).token;
    expect(await refused(check(node), node)).toContain('cannot be checked');
  });

  it('checks the audiences a request names (a TokenReview) and the API audiences otherwise', async () => {
    const { issue, check } = setup({ audiences: ['api', ISSUER] });
    const { token } = await issue({ audiences: ['vault', ISSUER] });
    expect((await check(token))?.audiences).toEqual([ISSUER]);
    expect((await check(token, ['vault']))?.audiences).toEqual(['vault']);
    await refused(check(token, ['other']), token);
  });

  it('reads the account fresh when the cache misses it or shows another uid', async () => {
    const { issue, check, sas } = setup();
    const { token } = await issue();
    sas.stale = new Map();
    expect((await check(token))?.user.uid).toBe('uid-x');
    expect(sas.freshReads).toBe(1);
    sas.stale = new Map(sas.live);
    expect((await check(token))?.user.uid).toBe('uid-x');
    expect(sas.freshReads).toBe(1);
  });

  it('has no opinion on tokens that are not JWTs or come from another issuer (another authenticator may know them)', async () => {
    const { authn } = setup();
    expect(await authn.authenticateToken('abc')).toBeNull();
    const other = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer('https://elsewhere')
      .sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    expect(await authn.authenticateToken(other)).toBeNull();
  });

  describe('security: each of these is refused (401)', () => {
    it('a token signed by another key, or with its signature swapped', async () => {
      const { issue, check } = setup();
      const good = await issue();
      const claims = decodeJwt(good.token);
      const forged = await craft(claims, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, 'RS256');
      expect(await refused(check(forged), forged)).toContain('invalid service account token');
      const [h, p] = good.token.split('.');
      const swapped = `${h}.${p}.${forged.split('.')[2]}`;
      await refused(check(swapped), swapped);
      // A payload edited under the original signature (another account).
      const edited = `${h}.${base64url.encode(JSON.stringify({ ...claims, sub: 'system:serviceaccount:kube-system:admin' }))}.${good.token.split('.')[2]}`;
      await refused(check(edited), edited);
    });

    it('an expired token (past the minute of leeway) and one not yet valid', async () => {
      const { issue, check, clock } = setup();
      const { token } = await issue({ expirationSeconds: 600 });
      clock.advance(600_000 + 59_000);
      expect((await check(token))?.user.name).toBe('system:serviceaccount:default:x');
      clock.advance(2000);
      expect(await refused(check(token), token)).toBe('service account token has expired');
      // Issued by a clock two hours ahead: nbf and iat are in the future here.
      const ahead = new ServiceAccountTokenIssuer({ issuer: ISSUER, key: PEM, clock: new FakeClock(clock.now() + 7_200_000) });
      const early = (await ahead.issue({ namespace: 'default', serviceAccount: { name: 'x', uid: 'uid-x' }, audiences: [ISSUER] })).token;
      expect(await refused(check(early), early)).toBe('service account token is not valid yet');
      // Valid from now (nbf) but issued two hours from now.
      const claims = decodeJwt(token);
      const now = Math.floor(clock.now() / 1000);
      const future = await craft({ ...claims, nbf: now, exp: now + 3600, iat: now + 7200 }, serviceAccountKeySet(PEM).signingKey, 'RS256');
      expect(await refused(check(future), future)).toBe('service account token is issued in the future');
    });

    it('a token for another audience, and one from another issuer', async () => {
      const { issue, check } = setup();
      const wrongAud = (await issue({ audiences: ['https://vault.example'] })).token;
      expect(await refused(check(wrongAud), wrongAud)).toContain('audiences are invalid');
      const claims = decodeJwt((await issue()).token);
      const wrongIss = await craft({ ...claims, iss: 'https://evil.example' }, serviceAccountKeySet(PEM).signingKey, 'RS256');
      expect(await refused(check(wrongIss), wrongIss)).toBe('invalid bearer token');
    });

    it('alg none, and HS256 signed with the public key as the HMAC secret', async () => {
      const { issue, check, issuer } = setup();
      const claims = decodeJwt((await issue()).token);
      const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify(claims))}.`;
      expect(await refused(check(none), none)).toContain('invalid service account token');
      for (const secret of [
        issuer.keys.signing.key.export({ type: 'spki', format: 'pem' }) as string,
        issuer.keys.signing.key.export({ type: 'spki', format: 'der' }),
      ]) {
        const hs = await craft(claims, new Uint8Array(Buffer.from(secret)), 'HS256');
        expect(await refused(check(hs), hs)).toContain('invalid service account token');
      }
    });

    it('a token whose ServiceAccount was deleted, or deleted and created again (new uid)', async () => {
      const { issue, check, sas } = setup();
      const { token } = await issue();
      sas.put('default', 'x', 'uid-new');
      expect(await refused(check(token), token)).toBe('service account UID (uid-new) does not match claim (uid-x)');
      sas.live.clear();
      expect(await refused(check(token), token)).toBe('service account default/x has been deleted');
      sas.put('default', 'x', 'uid-x', {
        metadata: { name: 'x', namespace: 'default', uid: 'uid-x', deletionTimestamp: '2026-01-01T00:00:00Z' },
      });
      await refused(check(token), token);
    });

    it('a token signed by our key with malformed kubernetes.io claims', async () => {
      const { issue, check } = setup();
      const claims = decodeJwt((await issue()).token);
      const key = serviceAccountKeySet(PEM).signingKey;
      for (const bad of [
        { ...claims, 'kubernetes.io': undefined },
        { ...claims, sub: 'system:serviceaccount:default:other' },
        { ...claims, 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'x' } } },
        { ...claims, exp: undefined },
      ]) {
        const t = await craft(bad, key, 'RS256');
        await refused(check(t), t);
      }
    });
  });

  describe('legacy Secret-based tokens', () => {
    it('are refused unless enabled, then accepted while their Secret holds them and refused once it is gone', async () => {
      const off = setup();
      const legacyToken = await off.issuer.issueLegacy('default', 'x-token', { name: 'x', uid: 'uid-x' });
      expect(await refused(off.check(legacyToken), legacyToken)).toBe('invalid bearer token');

      const { check, secrets, issuer, sas } = setup({ legacy: true });
      const token = await issuer.issueLegacy('default', 'x-token', { name: 'x', uid: 'uid-x' });
      await refused(check(token), token);
      secrets.put('default', 'x-token', 'uid-s', { data: { token: Buffer.from(token).toString('base64') } });
      expect((await check(token))?.user).toEqual({
        name: 'system:serviceaccount:default:x',
        uid: 'uid-x',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
      });
      secrets.put('default', 'x-token', 'uid-s', { data: { token: Buffer.from('other').toString('base64') } });
      expect(await refused(check(token), token)).toBe('service account token does not match its secret');
      secrets.put('default', 'x-token', 'uid-s', { data: { token: Buffer.from(token).toString('base64') } });
      sas.live.clear();
      await refused(check(token), token);
    });
  });
});

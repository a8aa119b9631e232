import { createPublicKey, type KeyObject } from 'node:crypto';
import { type CryptoKey, generateKeyPair, type JWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';

/**
 * One JWT authenticator as the shared security suite drives it (kube keeps one suite for every backend; this is
 * that for every authenticator of JWTs: OIDC, service accounts).
 */
export interface JWTSubject {
  /** Authenticates a bearer token: the result, null (not mine) or a rejection. */
  check(token: string): Promise<unknown>;
  /** Claims of a token the authenticator accepts, as of now. */
  validClaims(): Promise<Record<string, unknown>>;
  /** Seconds since the epoch by the authenticator's clock. */
  nowSeconds(): number;
  /** The genuine signing key, its algorithm and kid, and its public half (what the issuer publishes). */
  readonly privateKey: CryptoKey | KeyObject;
  readonly alg: string;
  readonly kid: string;
  readonly publicJWK: JWK;
  /** Stops what the subject started. */
  close?(): Promise<void> | void;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * The security cases every JWT authenticator must refuse — forged, tampered, stripped, expired, not yet valid,
 * wrong audience, wrong issuer, `alg: none`, HMAC keyed with the public key, unknown kid — each checked against a
 * control token that the same subject accepts, so no case can pass for the wrong reason (a subject that accepts
 * nothing fails the control). "Refused" is either answer that is not a user: null or a rejection.
 */
export function describeJWTSecurity(name: string, makeSubject: () => Promise<JWTSubject>): void {
  describe(`${name}: JWT security`, () => {
    async function withSubject(
      fn: (s: JWTSubject, sign: (claims: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string>) => Promise<void>,
    ) {
      const s = await makeSubject();
      const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
        new SignJWT(claims).setProtectedHeader({ alg: s.alg, kid: s.kid, ...header }).sign(s.privateKey);
      try {
        // The control: a token made the same way, unmodified, is accepted.
        const accepted = await s.check(await sign(await s.validClaims()));
        expect(accepted).toMatchObject({ user: { name: expect.any(String) } });
        await fn(s, sign);
      } finally {
        await s.close?.();
      }
    }

    async function refused(s: JWTSubject, token: string): Promise<void> {
      const outcome = await s.check(token).then(
        (result) => ({ result }),
        (err: Error) => ({ error: err.message }),
      );
      if ('result' in outcome) expect(outcome.result).toBeNull();
      else {
        expect(outcome.error).not.toContain(token);
        const signature = token.split('.')[2];
        if (signature) expect(outcome.error).not.toContain(signature);
      }
    }

    it('refuses a signature by another key under the genuine kid', () =>
      withSubject(async (s) => {
        const other = await generateKeyPair(s.alg);
        const forged = await new SignJWT(await s.validClaims()).setProtectedHeader({ alg: s.alg, kid: s.kid }).sign(other.privateKey);
        await refused(s, forged);
      }));

    it('refuses claims swapped under a genuine signature, and a stripped signature', () =>
      withSubject(async (s, sign) => {
        const genuine = await sign(await s.validClaims());
        const [h, , sig] = genuine.split('.') as [string, string, string];
        await refused(s, `${h}.${b64({ ...(await s.validClaims()), sub: 'root', name: 'root' })}.${sig}`);
        await refused(s, `${h}.${genuine.split('.')[1]}.`);
        await refused(s, `${h}.${genuine.split('.')[1]}`);
      }));

    it('refuses an expired token and one not valid yet (beyond any leeway)', () =>
      withSubject(async (s, sign) => {
        const now = s.nowSeconds();
        await refused(s, await sign({ ...(await s.validClaims()), iat: now - 900, nbf: now - 900, exp: now - 300 }));
        await refused(s, await sign({ ...(await s.validClaims()), iat: now, nbf: now + 300, exp: now + 900 }));
      }));

    it('refuses a token for another audience, and one of another issuer', () =>
      withSubject(async (s, sign) => {
        await refused(s, await sign({ ...(await s.validClaims()), aud: ['someone-else'] }));
        await refused(s, await sign({ ...(await s.validClaims()), iss: 'https://evil.example' }));
      }));

    it('refuses alg none, hand-built, in any spelling', () =>
      withSubject(async (s) => {
        for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
          await refused(s, `${b64({ alg, kid: s.kid })}.${b64(await s.validClaims())}.`);
          await refused(s, `${b64({ alg, typ: 'JWT' })}.${b64(await s.validClaims())}.`);
        }
      }));

    it('refuses HMAC signed with the published public key as the secret (PEM, DER, JWK)', () =>
      withSubject(async (s) => {
        const pub = createPublicKey({ key: s.publicJWK, format: 'jwk' });
        const secrets = [
          Buffer.from(pub.export({ type: 'spki', format: 'pem' })),
          Buffer.from(pub.export({ type: 'spki', format: 'der' })),
          Buffer.from(JSON.stringify(s.publicJWK)),
        ];
        for (const alg of ['HS256', 'HS384', 'HS512']) {
          for (const secret of secrets) {
            const token = await new SignJWT(await s.validClaims()).setProtectedHeader({ alg, kid: s.kid }).sign(secret);
            await refused(s, token);
          }
        }
      }));

    it('refuses a token naming a key the issuer never published', () =>
      withSubject(async (s) => {
        const other = await generateKeyPair(s.alg);
        const token = await new SignJWT(await s.validClaims())
          .setProtectedHeader({ alg: s.alg, kid: 'made-up-kid' })
          .sign(other.privateKey);
        await refused(s, token);
      }));
  });
}

import { createPrivateKey, createPublicKey } from 'node:crypto';
import { FakeClock, type KubeObject } from '@kapi/apimachinery';
import { decodeJwt, type JWK } from 'jose';
import { afterAll } from 'vitest';
import { OIDCAuthenticator } from './oidc.ts';
import { ServiceAccountAuthenticator } from './service-account-authenticator.ts';
import { generateServiceAccountKeyPEM } from './service-account-keys.ts';
import { ServiceAccountTokenIssuer } from './service-account-token-issuer.ts';
import { describeJWTSecurity } from './test-support/jwt-security-suite.ts';
import { startTestOIDCIssuer, type TestOIDCIssuer } from './test-support/oidc-issuer.ts';

// The shared JWT security cases, run against every authenticator of JWTs.

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

let issuer: Promise<TestOIDCIssuer> | undefined;
afterAll(async () => {
  await (await issuer)?.close();
});

describeJWTSecurity('OIDCAuthenticator', async () => {
  issuer ??= startTestOIDCIssuer();
  const idp = await issuer;
  const authn = new OIDCAuthenticator({ issuerURL: idp.url, clientID: 'kubernetes', ca: idp.ca });
  await authn.ready();
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  return {
    check: (token) => authn.authenticate(bearer(token)),
    validClaims: async () => ({ iss: idp.url, aud: 'kubernetes', sub: 'alice', iat: nowSeconds(), exp: nowSeconds() + 600 }),
    nowSeconds,
    privateKey: idp.privateKey,
    alg: 'RS256',
    kid: idp.kid,
    publicJWK: idp.publicJWK,
    close: () => authn.close(),
  };
});

describeJWTSecurity('ServiceAccountAuthenticator', async () => {
  const ISSUER = 'https://kubernetes.default.svc.cluster.local';
  const pem = generateServiceAccountKeyPEM('RS256');
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const tokens = new ServiceAccountTokenIssuer({ issuer: ISSUER, key: pem, clock });
  const account = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'x', namespace: 'default', uid: 'uid-x' } } as KubeObject;
  const authn = new ServiceAccountAuthenticator({
    issuers: [ISSUER],
    keys: tokens.verificationKeys,
    serviceAccounts: async (namespace, name) => (namespace === 'default' && name === 'x' ? account : null),
    clock,
  });
  return {
    check: (token) => authn.authenticate(bearer(token)),
    validClaims: async () => {
      const { token } = await tokens.issue({ namespace: 'default', serviceAccount: { name: 'x', uid: 'uid-x' }, audiences: [ISSUER] });
      return decodeJwt(token) as Record<string, unknown>;
    },
    nowSeconds: () => Math.floor(clock.now() / 1000),
    privateKey: createPrivateKey(pem),
    alg: 'RS256',
    kid: tokens.keys.signing.kid,
    publicJWK: createPublicKey(pem).export({ format: 'jwk' }) as JWK,
  };
});

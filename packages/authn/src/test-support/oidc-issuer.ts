import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeTestCA } from '@kapi/test-servers';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/**
 * A real OIDC issuer for tests: HTTPS on 127.0.0.1 with a certificate from a CA made here, serving
 * `/.well-known/openid-configuration` and the key set at `/keys`, signing ID tokens with jose. `rotate()` switches
 * to a new signing key (the old one leaves the key set), as a provider rotating keys does.
 */
export interface TestOIDCIssuer {
  /** The issuer URL (`https://127.0.0.1:<port>`), also every token's default `iss`. */
  readonly url: string;
  /** PEM of the CA that signed the issuer's serving certificate. */
  readonly ca: string;
  /** The current signing key's kid. */
  readonly kid: string;
  /** The current signing key's public half as a JWK (what the key set serves). */
  readonly publicJWK: JWK;
  /** The current signing key's private half. */
  readonly privateKey: CryptoKey;
  /** How many times the key set was fetched. */
  readonly jwksFetches: number;
  /** How many times discovery was fetched. */
  readonly discoveryFetches: number;
  /** Signs `claims` over defaults (iss, aud `kubernetes`, sub `alice`, iat now, exp in 10 min) with the current key. */
  sign(claims?: JWTPayload, options?: { key?: CryptoKey; kid?: string; alg?: string }): Promise<string>;
  /** A new signing key replaces the current one in the key set. */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

export interface TestOIDCIssuerOptions {
  /** What discovery says `issuer` is; default the real URL (tests of a mismatching discovery document change it). */
  discoveryIssuer?: (url: string) => string;
  /** Answers discovery with this status and body instead (tests of broken issuers). */
  discoveryResponse?: (url: string) => { status: number; body: string };
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startTestOIDCIssuer(options: TestOIDCIssuerOptions = {}): Promise<TestOIDCIssuer> {
  const tls = await servingCertificate();
  let key = await newSigningKey();
  let jwksFetches = 0;
  let discoveryFetches = 0;
  let url = '';
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    if (path === '/.well-known/openid-configuration') {
      discoveryFetches++;
      const custom = options.discoveryResponse?.(url);
      if (custom) {
        res.statusCode = custom.status;
        res.end(custom.body);
        return;
      }
      const issuer = options.discoveryIssuer ? options.discoveryIssuer(url) : url;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer, jwks_uri: `${url}/keys`, id_token_signing_alg_values_supported: ['RS256'] }));
    } else if (path === '/keys') {
      jwksFetches++;
      res.setHeader('content-type', 'application/jwk-set+json');
      res.end(JSON.stringify({ keys: [key.jwk] }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    ca: tls.ca,
    get kid() {
      return key.kid;
    },
    get publicJWK() {
      return key.jwk;
    },
    get privateKey() {
      return key.privateKey;
    },
    get jwksFetches() {
      return jwksFetches;
    },
    get discoveryFetches() {
      return discoveryFetches;
    },
    async sign(claims = {}, signOptions = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, aud: 'kubernetes', sub: 'alice', iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: signOptions.alg ?? 'RS256', kid: signOptions.kid ?? key.kid })
        .sign(signOptions.key ?? key.privateKey);
    },
    async rotate() {
      key = await newSigningKey();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A CA made here and a serving certificate for 127.0.0.1 and localhost that it signs (test-servers' test CA). */
async function servingCertificate(): Promise<{ ca: string; cert: string; key: string }> {
  const ca = await makeTestCA('test-oidc-issuer-ca');
  return { ca: ca.pem, ...(await ca.issue({ cn: '127.0.0.1', usage: 'server' })) };
}

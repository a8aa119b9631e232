/**
 * Per-request cost of a bearer-token check, in one run, each figure next to a reference measured alongside it:
 *  - a JWT check behind kapi's TokenCache (hit) vs the same check uncached (a jose jwtVerify per request);
 *  - a TokenReview webhook behind the cache (hit) vs the webhook asked every time (HTTP on loopback, kept alive);
 *  - JWT verifications per second through the bearer authenticator (RS256, ES256) vs a raw jose jwtVerify.
 * Figures are ops/s (best of alternating rounds); ratio = kapi / reference. Run: `npm run bench` in packages/authn.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import type { AuthenticationResult } from '../src/authenticator.ts';
import { BearerTokenAuthenticator, type TokenAuthenticator } from '../src/bearer-token.ts';
import { TokenCache } from '../src/token-cache.ts';
import { WebhookTokenAuthenticator } from '../src/webhook-token.ts';

const ROUNDS = 5;
const ISSUER = 'https://bench.kapi';

/** A minimal JWT token authenticator (what a service-account or OIDC authenticator does at its core). */
function jwtAuthenticator(key: CryptoKey, alg: string): TokenAuthenticator {
  return {
    async authenticateToken(token: string): Promise<AuthenticationResult | null> {
      const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: 'kapi', algorithms: [alg] });
      return { user: { name: String(payload.sub), groups: [] } };
    },
  };
}

async function signed(alg: 'RS256' | 'ES256') {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg })
    .setIssuer(ISSUER)
    .setAudience('kapi')
    .setSubject('system:serviceaccount:default:bench')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return { token, publicKey, alg };
}

const rs = await signed('RS256');
const es = await signed('ES256');
const headers = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

async function loop(n: number, fn: () => Promise<unknown>): Promise<number> {
  return timeOps(n, async () => {
    for (let i = 0; i < n; i++) await fn();
  });
}

const rows: BenchRow[] = [];

// Cached vs uncached JWT check, both through the bearer authenticator.
{
  const bare = new BearerTokenAuthenticator(jwtAuthenticator(rs.publicKey, 'RS256'));
  const cached = new BearerTokenAuthenticator(new TokenCache(jwtAuthenticator(rs.publicKey, 'RS256')));
  const n = 20_000;
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    () => loop(n, () => cached.authenticate(headers(rs.token))),
    () => loop(n / 10, () => bare.authenticate(headers(rs.token))),
  );
  rows.push(['RS256 JWT check, cached vs uncached', k, r]);
}

// Cached vs uncached TokenReview webhook on loopback.
{
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: { authenticated: true, user: { username: 'alice', groups: ['dev'] } } }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const hook = new WebhookTokenAuthenticator({ server: url });
  const bare = new BearerTokenAuthenticator(hook);
  const cached = new BearerTokenAuthenticator(new TokenCache(hook));
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    () => loop(20_000, () => cached.authenticate(headers('webhook-token'))),
    () => loop(1_000, () => bare.authenticate(headers('webhook-token'))),
  );
  rows.push(['webhook check, cached vs uncached', k, r]);
  hook.close();
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
}

// JWT verifications per second: the bearer authenticator over a jose verifier vs jose alone.
for (const { token, publicKey, alg } of [rs, es]) {
  const authn = new BearerTokenAuthenticator(jwtAuthenticator(publicKey, alg));
  const n = alg === 'RS256' ? 4_000 : 2_000;
  const [k, r] = await bestOfAlternating(
    ROUNDS,
    () => loop(n, () => authn.authenticate(headers(token))),
    () => loop(n, () => jwtVerify(token, publicKey, { issuer: ISSUER, audience: 'kapi', algorithms: [alg] })),
  );
  rows.push([`${alg} verifications/s vs jose jwtVerify`, k, r]);
}

printTable({
  title: 'authn: bearer-token checks per second (Node, one core)',
  notes: [
    'cached rows: reference = the same check with no cache (every request verifies / asks the webhook)',
    'verification rows: reference = a raw jose jwtVerify of the same token (kapi adds the bearer parsing)',
  ],
  referenceName: 'reference',
  rows,
});
const us = (opsPerSecond: number) => `${(1e6 / opsPerSecond).toFixed(1)} µs`;
for (const [name, kapi, reference] of rows.slice(0, 2)) {
  console.log(`${name}: ${us(kapi)} per request cached, ${us(reference)} uncached`);
}

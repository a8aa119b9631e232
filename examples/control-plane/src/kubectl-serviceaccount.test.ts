import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import { type ControlPlane, DEFAULT_SERVICE_ACCOUNT_ISSUER, startControlPlane } from './control-plane.ts';
import { runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * Service accounts with kubectl (1.32, 1.27 and 1.33) against the example control plane (memory backend):
 * `kubectl create serviceaccount`, `kubectl create token` (the TokenRequest subresource), the token used with
 * `kubectl --token=… auth whoami`, and refused (401) once the account is deleted or recreated; the `default` account
 * the serviceaccounts controller keeps in every namespace.
 */

const binaries = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']);
const T = 60_000;
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

describe.each(binaries.map((bin) => [basename(bin), bin] as const))('%s with service accounts', (_name, bin) => {
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-sa-'));
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  const run = (...args: string[]) => runKubectl(bin, tmp, cp.kubeconfigPath, args);
  const k = async (...args: string[]) => succeeded(args, await run(...args));
  /** `--token` replaces the kubeconfig's admin token. */
  const whoami = (token: string) => run('--token', token, 'auth', 'whoami');

  it('create sa, get sa, create token, auth whoami with it; 401 once deleted or recreated', { timeout: T }, async () => {
    expect(squash(await k('api-resources')).split('\n')).toContain('serviceaccounts sa v1 true ServiceAccount');
    expect(await k('create', 'serviceaccount', 'x')).toBe('serviceaccount/x created\n');
    expect(squash(await k('get', 'sa', 'x'))).toMatch(/^NAME SECRETS AGE\nx 0 \d+s\n$/);
    const uid = (await k('get', 'sa', 'x', '-o', 'jsonpath={.metadata.uid}')).trim();

    const token = (await k('create', 'token', 'x')).trim();
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: DEFAULT_SERVICE_ACCOUNT_ISSUER,
      aud: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
      sub: 'system:serviceaccount:default:x',
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'x', uid } },
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);

    const me = await whoami(token);
    expect(me.code, me.stderr).toBe(0);
    expect(squash(me.stdout)).toBe(
      'ATTRIBUTE VALUE\nUsername system:serviceaccount:default:x\n' +
        `UID ${uid}\nGroups [system:serviceaccounts system:serviceaccounts:default system:authenticated]\n` +
        `Extra: authentication.kubernetes.io/credential-id [JTI=${claims.jti}]\n`,
    );

    expect(await k('delete', 'sa', 'x')).toBe('serviceaccount "x" deleted\n');
    const after = await whoami(token);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('Unauthorized');
    expect(after.stderr).not.toContain(token);

    // A new account of the same name has another uid: the old token stays refused.
    await k('create', 'serviceaccount', 'x');
    expect((await whoami(token)).stderr).toContain('Unauthorized');
  });

  it('create namespace: its default account (the serviceaccounts controller) gets a token at once, and comes back when deleted', {
    timeout: T,
  }, async () => {
    const ns = `fresh-${basename(bin).replace(/\W/g, '-')}`;
    await k('create', 'namespace', ns);
    // The controller reacts to the namespace's watch event; kubectl's own start-up usually outlasts it.
    const token = async (): Promise<string> => {
      for (let i = 0; ; i++) {
        const r = await run('-n', ns, 'create', 'token', 'default');
        if (r.code === 0 || i === 20) {
          expect(r.code, r.stderr).toBe(0);
          return r.stdout.trim();
        }
        await new Promise((res) => setTimeout(res, 50));
      }
    };
    const sub = `system:serviceaccount:${ns}:default`;
    expect(decodeJwt(await token()).sub).toBe(sub);
    expect(squash(await k('-n', ns, 'get', 'sa'))).toMatch(/^NAME SECRETS AGE\ndefault 0 \d+s\n$/);
    // Every namespace made at start has one too.
    expect((await k('get', 'sa', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}')).split(' ')).toEqual(
      expect.arrayContaining(['default/default', 'kube-system/default', 'kube-public/default', 'kube-node-lease/default', `${ns}/default`]),
    );
    const uid = (await k('-n', ns, 'get', 'sa', 'default', '-o', 'jsonpath={.metadata.uid}')).trim();
    await k('-n', ns, 'delete', 'sa', 'default');
    const again = await token();
    expect(decodeJwt(again)['kubernetes.io']).toMatchObject({ serviceaccount: { name: 'default' } });
    expect((decodeJwt(again)['kubernetes.io'] as { serviceaccount: { uid: string } }).serviceaccount.uid).not.toBe(uid);
    const me = await whoami(again);
    expect(me.code, me.stderr).toBe(0);
    expect(squash(me.stdout)).toContain(`Username ${sub}`);
  });

  it('create token --bound-object-kind Secret: the token lives as long as the Secret; Pods are not served', { timeout: T }, async () => {
    await k('create', 'serviceaccount', 'z');
    await k('create', 'secret', 'generic', 's', '--from-literal=a=b');
    const uid = (await k('get', 'secret', 's', '-o', 'jsonpath={.metadata.uid}')).trim();
    const token = (await k('create', 'token', 'z', '--bound-object-kind', 'Secret', '--bound-object-name', 's')).trim();
    expect(decodeJwt(token)['kubernetes.io']).toMatchObject({ secret: { name: 's', uid } });
    expect((await whoami(token)).code).toBe(0);
    await k('delete', 'secret', 's');
    expect((await whoami(token)).stderr).toContain('Unauthorized');
    const pod = await run('create', 'token', 'z', '--bound-object-kind', 'Pod', '--bound-object-name', 'p');
    expect(pod.code).not.toBe(0);
    expect(pod.stderr).toContain('cannot bind token to object of type /v1, Kind=Pod');
  });

  it('create token --duration and --audience; a missing account is NotFound; a too short duration is refused', { timeout: T }, async () => {
    await k('create', 'serviceaccount', 'y');
    const token = (await k('create', 'token', 'y', '--duration', '2h', '--audience', 'vault')).trim();
    const claims = decodeJwt(token);
    expect(claims.aud).toEqual(['vault']);
    expect((claims.exp as number) - (claims.iat as number)).toBe(7200);
    // Not for the API's audience: the server refuses it.
    expect((await whoami(token)).stderr).toContain('Unauthorized');
    // Verifiable by another system with the keys the server publishes.
    const jwks = JSON.parse(await k('get', '--raw', '/openid/v1/jwks'));
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: DEFAULT_SERVICE_ACCOUNT_ISSUER, audience: 'vault' });
    expect(payload.sub).toBe('system:serviceaccount:default:y');
    const config = JSON.parse(await k('get', '--raw', '/.well-known/openid-configuration'));
    expect(config).toMatchObject({ issuer: DEFAULT_SERVICE_ACCOUNT_ISSUER, jwks_uri: `${cp.url}/openid/v1/jwks` });

    const missing = await run('create', 'token', 'nobody');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('serviceaccounts "nobody" not found');
    const short = await run('create', 'token', 'y', '--duration', '5m');
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('may not specify a duration less than 10 minutes');
  });
});

describe('service-account keys of the control plane', () => {
  it('are kept in the data directory: a restarted control plane publishes the same key; the flags set issuer and maximum', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'kapi-sa-keys-'));
    const dataDir = join(tmp, 'data');
    const jwks = async (cp: ControlPlane) =>
      (await (await fetch(`${cp.url}/openid/v1/jwks`, { headers: { authorization: `Bearer ${cp.token}` } })).json()) as {
        keys: { kid: string }[];
      };
    try {
      const first = await startControlPlane({ port: 0, dataDir, insecureHTTP: true });
      const kids = (await jwks(first)).keys.map((k) => k.kid);
      await first.stop();
      const second = await startControlPlane({
        port: 0,
        dataDir,
        insecureHTTP: true,
        serviceAccountIssuer: 'https://kapi.example',
        serviceAccountMaxTokenExpirationSeconds: 1200,
      });
      try {
        expect((await jwks(second)).keys.map((k) => k.kid)).toEqual(kids);
        const post = (path: string, body: unknown) =>
          fetch(`${second.url}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${second.token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        await post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'x' } });
        const res = await post('/api/v1/namespaces/default/serviceaccounts/x/token', { spec: { expirationSeconds: 7200 } });
        const { status, spec } = (await res.json()) as { status: { token: string }; spec: { expirationSeconds: number } };
        expect(spec.expirationSeconds).toBe(1200);
        expect(decodeJwt(status.token)).toMatchObject({ iss: 'https://kapi.example', aud: ['https://kapi.example'] });
      } finally {
        await second.stop();
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestOIDCIssuer, type TestOIDCIssuer } from '../../../packages/authn/src/test-support/oidc-issuer.ts';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import { killTestProcesses, startMain, type TestProcess, waitForServing } from './test-support/test-process.ts';

/**
 * `npm start` with kube's --oidc-* flags against an OIDC issuer this test runs on loopback over HTTPS (its CA given
 * with --oidc-ca-file): `kubectl --token=<id token> auth whoami` is the issuer's user with kube's default
 * `<issuer>#` username prefix and the prefixed groups; expired, forged, wrong-audience and other-issuer tokens are
 * Unauthorized; the admin token of the token file still works beside OIDC.
 */

const execFileAsync = promisify(execFile);
const [kubectl] = kubectlBinaries(['kubectl']) as [string];
const T = 60_000;

const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');
const now = () => Math.floor(Date.now() / 1000);

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('kubectl with an OIDC id-token against npm start --oidc-*', () => {
  let issuer: TestOIDCIssuer;
  let tmp: string;
  let main: TestProcess | undefined;
  let kubeconfig: string;

  beforeAll(async () => {
    issuer = await startTestOIDCIssuer();
    tmp = await mkdtemp(join(tmpdir(), 'kapi-kubectl-oidc-'));
    const caFile = join(tmp, 'oidc-ca.pem');
    await writeFile(caFile, issuer.ca);
    const dataDir = join(tmp, 'data');
    kubeconfig = join(dataDir, 'kubeconfig');
    main = startMain([
      ...['--port', '0', '--data-dir', dataDir],
      ...['--oidc-issuer-url', issuer.url, '--oidc-client-id', 'kubernetes', '--oidc-ca-file', caFile],
      ...['--oidc-groups-claim', 'groups', '--oidc-groups-prefix', 'oidc:', '--oidc-required-claim', 'tier=gold'],
      // Requests then ask every authenticator for these audiences; ID tokens are good for them (kube: audience-agnostic).
      ...['--api-audiences', 'https://kapi.example'],
    ]);
    await waitForServing(main);
  }, T);
  afterAll(async () => {
    await main?.stop();
    await killTestProcesses();
    await issuer?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, T);

  async function run(...args: string[]): Promise<Exit> {
    try {
      const { stdout, stderr } = await execFileAsync(kubectl, ['--kubeconfig', kubeconfig, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: tmp, KUBECACHEDIR: join(tmp, 'cache') },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; code?: number };
      if (typeof e.code !== 'number') throw err;
      return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  }

  it('auth whoami --token=<id token> is the issuer’s user (kube’s <issuer># prefix) with its prefixed groups', { timeout: T }, async () => {
    const token = await issuer.sign({ sub: 'alice', groups: ['dev', 'ops'], tier: 'gold' });
    const r = await run(`--token=${token}`, 'auth', 'whoami');
    expect(r.stderr).toBe('');
    expect(squash(r.stdout)).toBe(`ATTRIBUTE VALUE\nUsername ${issuer.url}#alice\nGroups [oidc:dev oidc:ops system:authenticated]\n`);
    // The token file's admin still works beside OIDC.
    expect(squash((await run('auth', 'whoami')).stdout)).toContain('Username kapi-admin');
  });

  it('expired, forged, wrong-audience, other-issuer and claim-less tokens are Unauthorized', { timeout: T }, async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const tokens = [
      await issuer.sign({ tier: 'gold', iat: now() - 120, exp: now() - 60 }),
      await issuer.sign({ tier: 'gold' }, { key: privateKey }),
      await issuer.sign({ tier: 'gold', aud: 'someone-else' }),
      await issuer.sign({ tier: 'gold', iss: 'https://other.example' }),
      await issuer.sign({ groups: ['dev'] }),
    ];
    for (const token of tokens) {
      const r = await run(`--token=${token}`, 'auth', 'whoami');
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 1,
        stderr: 'error: You must be logged in to the server (Unauthorized)\n',
      });
    }
  });

  it('--authentication-config (YAML, jwt issuers with claim mappings) instead of the flags; both together are refused', {
    timeout: T,
  }, async () => {
    const config = join(tmp, 'authn.yaml');
    await writeFile(
      config,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AuthenticationConfiguration',
        'jwt:',
        '- issuer:',
        `    url: ${issuer.url}`,
        '    audiences: [kubernetes]',
        '    certificateAuthority: |',
        ...issuer.ca
          .trimEnd()
          .split('\n')
          .map((l) => `      ${l}`),
        '  claimMappings:',
        '    username: {claim: email, prefix: "cfg:"}',
        '    groups: {claim: roles, prefix: ""}',
        '  claimValidationRules:',
        '  - {claim: tier, requiredValue: gold}',
        '',
      ].join('\n'),
    );
    const dataDir = join(tmp, 'config-data');
    const plane = startMain(['--port', '0', '--data-dir', dataDir, '--authentication-config', config]);
    try {
      await waitForServing(plane);
      const token = await issuer.sign({ email: 'carol@example.com', roles: 'admin', tier: 'gold' });
      const r = await run('--kubeconfig', join(dataDir, 'kubeconfig'), `--token=${token}`, 'auth', 'whoami');
      expect(squash(r.stdout)).toBe('ATTRIBUTE VALUE\nUsername cfg:carol@example.com\nGroups [admin system:authenticated]\n');
      const unverified = await issuer.sign({ email: 'carol@example.com', email_verified: false, tier: 'gold' });
      const denied = await run('--kubeconfig', join(dataDir, 'kubeconfig'), `--token=${unverified}`, 'auth', 'whoami');
      expect(denied.stderr).toBe('error: You must be logged in to the server (Unauthorized)\n');
    } finally {
      await plane.stop();
    }
    const both = await startMain(['--port', '0', '--data-dir', dataDir, '--authentication-config', config, '--oidc-client-id', 'k']).exited;
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('authentication-config file and oidc-* flags are mutually exclusive');
  });

  it('--oidc-issuer-url without --oidc-client-id, or over http, is refused at startup', { timeout: T }, async () => {
    const alone = startMain(['--port', '0', '--data-dir', join(tmp, 'other'), '--oidc-issuer-url', issuer.url]);
    const e1 = await alone.exited;
    expect(e1.code).toBe(2);
    expect(e1.stderr).toContain('oidc-issuer-url and oidc-client-id must be specified together');
    const http = startMain([
      '--port',
      '0',
      '--data-dir',
      join(tmp, 'other'),
      '--oidc-issuer-url',
      'http://127.0.0.1:1',
      '--oidc-client-id',
      'k',
    ]);
    const e2 = await http.exited;
    expect(e2.code).toBe(1);
    expect(e2.stderr).toContain(`'oidc-issuer-url' ("http://127.0.0.1:1") has invalid scheme ("http"), require 'https'`);
  });
});

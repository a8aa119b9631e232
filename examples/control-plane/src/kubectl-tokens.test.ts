import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { runKubectl, startTempControlPlane, stopTempControlPlane } from './test-support/kubectl.ts';

/**
 * kubectl against `npm start`'s control plane with part D's tokens: a bootstrap token (`kubectl --token`), a TokenReview
 * created with `kubectl create -f` (found through discovery), and a wrong token answered Unauthorized.
 */

const [bin] = kubectlBinaries(['kubectl']);
const T = 60_000;
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

describe('kubectl with bootstrap tokens and TokenReview', () => {
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-tokens-'));
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  const run = (...args: string[]) => runKubectl(bin as string, tmp, cp.kubeconfigPath, args);

  it('kubectl --token=<bootstrap token> is system:bootstrap:<id> once the Secret exists', { timeout: T }, async () => {
    const token = 'k8sabc.0123456789abcdef';
    expect((await run('--token', token, 'auth', 'whoami')).stderr).toContain('Unauthorized');
    await writeFile(
      join(tmp, 'bootstrap.yaml'),
      `apiVersion: v1
kind: Secret
metadata:
  name: bootstrap-token-k8sabc
  namespace: kube-system
type: bootstrap.kubernetes.io/token
stringData:
  token-id: k8sabc
  token-secret: 0123456789abcdef
  usage-bootstrap-authentication: "true"
  auth-extra-groups: system:bootstrappers:kubeadm:default-node-token
`,
    );
    const created = await run('create', '-f', join(tmp, 'bootstrap.yaml'));
    expect(created.stderr).toBe('');
    let who = { stdout: '', stderr: '', code: 1 };
    for (let i = 0; i < 50 && who.code !== 0; i++) {
      who = await run('--token', token, 'auth', 'whoami');
      if (who.code !== 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(squash(who.stdout)).toBe(
      'ATTRIBUTE VALUE\nUsername system:bootstrap:k8sabc\nGroups [system:bootstrappers system:bootstrappers:kubeadm:default-node-token system:authenticated]\n',
    );
  });

  it('kubectl create -f tokenreview.yaml reviews a token without echoing it', { timeout: T }, async () => {
    await writeFile(
      join(tmp, 'review.yaml'),
      `apiVersion: authentication.k8s.io/v1
kind: TokenReview
spec:
  token: ${cp.token}
`,
    );
    const r = await run('create', '-f', join(tmp, 'review.yaml'), '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain(cp.token);
    expect(JSON.parse(r.stdout).status).toEqual({
      authenticated: true,
      user: { username: 'kapi-admin', uid: 'kapi-admin', groups: ['system:masters', 'system:authenticated'] },
    });
  });

  it('a wrong token is Unauthorized', { timeout: T }, async () => {
    const r = await run('--token', 'not-a-real-token', 'get', 'namespaces');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
    expect(r.stderr).not.toContain('not-a-real-token');
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { staticCABundle } from '@kapi/authn';
import { clientCertificateAuthority, issueClientCertificate, kubeconfig } from '@kapi/server-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { runKubectl, startTempControlPlane, stopTempControlPlane } from './test-support/kubectl.ts';

/**
 * kubectl with the client-certificate kubeconfig the control plane writes (`<dataDir>/admin.kubeconfig`): the
 * certificate is the admin (CN kapi-admin, O system:masters); a certificate of another CA is Unauthorized; a new
 * client CA written over `<dataDir>/client-ca.crt` takes effect without a restart.
 */

const [bin] = kubectlBinaries(['kubectl']);
const T = 60_000;

describe('kubectl with a client certificate against the control plane', () => {
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-x509-'));
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  const run = (config: string, ...args: string[]) => runKubectl(bin as string, tmp, config, args);

  /** A kubeconfig for this server with a client certificate of `ca`. */
  async function certKubeconfig(name: string, ca: { cert: string; key: string }, user: string, groups: string[]): Promise<string> {
    const serverCA = parse(await readFile(cp.kubeconfigPath, 'utf8')).clusters[0].cluster['certificate-authority-data'];
    const client = await issueClientCertificate(ca, { user, groups });
    const path = join(tmp, name);
    await writeFile(
      path,
      kubeconfig({ server: cp.url, ca: Buffer.from(serverCA, 'base64').toString(), clientCertificate: client.cert, clientKey: client.key }),
    );
    return path;
  }

  it('npm start writes a kubeconfig whose user is a client certificate, not a token', async () => {
    expect(cp.clientCertKubeconfigPath).toBe(join(tmp, 'data', 'admin.kubeconfig'));
    const doc = parse(await readFile(cp.clientCertKubeconfigPath, 'utf8'));
    expect(Object.keys(doc.users[0].user).sort()).toEqual(['client-certificate-data', 'client-key-data']);
  });

  it('kubectl get ns works with it', { timeout: T }, async () => {
    const r = await run(cp.clientCertKubeconfigPath, 'get', 'ns', '-o', 'name');
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['namespace/default', 'namespace/kube-system']));
  });

  it('kubectl auth whoami shows the CN and the O groups', { timeout: T }, async () => {
    const r = await run(cp.clientCertKubeconfigPath, 'auth', 'whoami', '-o', 'json');
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout).status.userInfo;
    expect(info).toMatchObject({ username: 'kapi-admin', groups: ['system:masters', 'system:authenticated'] });
    expect(info.extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^X509SHA256=[0-9a-f]{64}$/);
    const table = (await run(cp.clientCertKubeconfigPath, 'auth', 'whoami')).stdout.replace(/[ \t]+/g, ' ');
    expect(table).toContain('Username kapi-admin\n');
    expect(table).toContain('Groups [system:masters system:authenticated]\n');
  });

  it('a certificate of another CA is Unauthorized', { timeout: T }, async () => {
    const other = await clientCertificateAuthority({ dir: join(tmp, 'other-ca') });
    const config = await certKubeconfig('other.kubeconfig', other, 'kapi-admin', ['system:masters']);
    const r = await run(config, 'get', 'ns');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });

  it('a new client CA written over client-ca.crt is trusted without a restart, and the old one no longer', { timeout: T }, async () => {
    const next = await clientCertificateAuthority({ dir: join(tmp, 'next-ca') });
    const config = await certKubeconfig('next.kubeconfig', next, 'rotated', ['ops']);
    expect((await run(config, 'get', 'ns')).code).toBe(1);
    await writeFile(join(tmp, 'data', 'client-ca.crt'), next.cert);
    // The file watcher picks it up; poll briefly rather than sleep a fixed time.
    let whoami = await run(config, 'auth', 'whoami', '-o', 'json');
    for (let i = 0; i < 50 && whoami.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      whoami = await run(config, 'auth', 'whoami', '-o', 'json');
    }
    expect(JSON.parse(whoami.stdout).status.userInfo).toMatchObject({ username: 'rotated', groups: ['ops', 'system:authenticated'] });
    const old = await run(cp.clientCertKubeconfigPath, 'get', 'ns');
    expect(old.stderr).toContain('(Unauthorized)');
  });

  it('with requestHeader, a front proxy with its certificate speaks for a user; without it X-Remote-User is not believed', {
    timeout: T,
  }, async () => {
    const proxyCA = await clientCertificateAuthority({ dir: join(tmp, 'proxy-ca') });
    const proxyCert = await issueClientCertificate(proxyCA, { user: 'front-proxy-client' });
    const fronted = await startControlPlane({
      port: 0,
      dataDir: join(tmp, 'fronted'),
      requestHeader: { ca: staticCABundle(proxyCA.cert), allowedNames: ['front-proxy-client'] },
    });
    try {
      const serverCA = Buffer.from(
        parse(await readFile(fronted.kubeconfigPath, 'utf8')).clusters[0].cluster['certificate-authority-data'],
        'base64',
      );
      const whoami = (client: { cert?: string; key?: string }) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = request(
            `${fronted.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
            {
              method: 'POST',
              ca: serverCA,
              ...client,
              agent: false,
              headers: { 'content-type': 'application/json', 'X-Remote-User': 'dana', 'X-Remote-Group': 'viewers' },
            },
            (res) => {
              let body = '';
              res.on('data', (c: Buffer) => {
                body += c;
              });
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            },
          );
          req.on('error', reject);
          req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
        });
      const proxied = await whoami(proxyCert);
      expect(proxied.status).toBe(201);
      expect(JSON.parse(proxied.body).status.userInfo).toEqual({ username: 'dana', groups: ['viewers', 'system:authenticated'] });
      // Without the proxy's certificate the headers are ignored: the request is system:anonymous, whom RBAC refuses.
      const direct = await whoami({});
      expect(direct.status).toBe(403);
      expect(JSON.parse(direct.body).message).toContain('User "system:anonymous" cannot create resource "selfsubjectreviews"');
      // The admin's own certificate still works beside the proxy.
      expect((await run(fronted.clientCertKubeconfigPath, 'auth', 'whoami', '-o', 'json')).code).toBe(0);
    } finally {
      await fronted.stop();
    }
  });
});

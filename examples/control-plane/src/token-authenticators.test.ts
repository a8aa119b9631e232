import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from './control-plane.ts';

/** Part D's token authenticators as `npm start` wires them: bootstrap tokens from the Secret store, legacy basic auth. */

let plane: ControlPlane | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await plane?.stop();
  plane = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function whoami(url: string, authorization: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('token authenticators in the example control plane', () => {
  it('accepts a bootstrap token once its Secret exists in kube-system, and refuses it once it is deleted', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kapi-bootstrap-'));
    dirs.push(dataDir);
    const cp = await startControlPlane({ port: 0, dataDir, insecureHTTP: true, storage: 'memory' });
    plane = cp;
    const token = 'abcdef.0123456789abcdef';
    expect((await whoami(plane.url, `Bearer ${token}`)).status).toBe(401);
    const admin = { 'content-type': 'application/json', authorization: `Bearer ${plane.token}` };
    const created = await fetch(`${plane.url}/api/v1/namespaces/kube-system/secrets`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
        type: 'bootstrap.kubernetes.io/token',
        data: {
          'token-id': b64('abcdef'),
          'token-secret': b64('0123456789abcdef'),
          'usage-bootstrap-authentication': b64('true'),
          'auth-extra-groups': b64('system:bootstrappers:kubeadm:default-node-token'),
        },
      }),
    });
    expect(created.status).toBe(201);
    // The Secret is read through the watch cache, which may lag the create by a moment.
    await expect
      .poll(async () => (await whoami(cp.url, `Bearer ${token}`)).body.status, { timeout: 5000 })
      .toEqual({
        userInfo: {
          username: 'system:bootstrap:abcdef',
          groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
        },
      });
    expect((await whoami(plane.url, 'Bearer abcdef.0123456789abcdee')).status).toBe(401);
    await fetch(`${plane.url}/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef`, { method: 'DELETE', headers: admin });
    await expect.poll(async () => (await whoami(cp.url, `Bearer ${token}`)).status, { timeout: 5000 }).toBe(401);
  });

  it('takes legacy basic auth only when a password file is given', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kapi-basic-'));
    dirs.push(dataDir);
    const basicAuthFile = join(dataDir, 'passwords.csv');
    writeFileSync(basicAuthFile, 'pa55word,bob,1002,"dev"\n');
    const basic = `Basic ${b64('bob:pa55word')}`;
    plane = await startControlPlane({ port: 0, dataDir, insecureHTTP: true, storage: 'memory', basicAuthFile });
    expect((await whoami(plane.url, basic)).body.status).toEqual({
      userInfo: { username: 'bob', uid: '1002', groups: ['dev', 'system:authenticated'] },
    });
    expect((await whoami(plane.url, `Basic ${b64('bob:wrong')}`)).status).toBe(401);
    await plane.stop();
    plane = await startControlPlane({ port: 0, dataDir, insecureHTTP: true, storage: 'memory' });
    // Without the file nothing reads the Basic header: the request is system:anonymous, whom RBAC refuses (kube's 403).
    expect((await whoami(plane.url, basic)).status).toBe(403);
  });

  it('checks every token against --api-audiences, and TokenReview answers for them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kapi-audiences-'));
    dirs.push(dataDir);
    const aud = 'https://kapi.example';
    const cp = await startControlPlane({ port: 0, dataDir, insecureHTTP: true, storage: 'memory', apiAudiences: [aud] });
    plane = cp;
    const admin = { 'content-type': 'application/json', authorization: `Bearer ${cp.token}` };
    const post = async (path: string, body: unknown) =>
      (await fetch(`${cp.url}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) })).json() as Promise<
        Record<string, Record<string, unknown>>
      >;
    expect((await whoami(cp.url, `Bearer ${cp.token}`)).status).toBe(201);
    const review = (token: string, audiences?: string[]) =>
      post('/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, ...(audiences ? { audiences } : {}) },
      });
    expect((await review(cp.token)).status).toMatchObject({ authenticated: true, audiences: [aud], user: { username: 'kapi-admin' } });
    expect((await review(cp.token, ['vault'])).status).toMatchObject({ authenticated: false });
    // A service-account token (kubectl create token) is issued for the API audiences and reviewed for them.
    await post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    const request = await post('/api/v1/namespaces/default/serviceaccounts/robot/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    const saToken = String(request.status?.token);
    await expect
      .poll(async () => (await review(saToken)).status, { timeout: 5000 })
      .toMatchObject({ authenticated: true, audiences: [aud], user: { username: 'system:serviceaccount:default:robot' } });
    expect((await whoami(cp.url, `Bearer ${saToken}`)).status).toBe(201);
  });
});

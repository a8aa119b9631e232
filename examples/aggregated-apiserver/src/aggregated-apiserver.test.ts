import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bearer, type CallOptions, callWith, type Reply } from '../../../packages/server-core/src/test-support/https-json.ts';
import { type ControlPlane, startControlPlane } from '../../control-plane/src/control-plane.ts';
import { type AggregatedAPIServer, startAggregatedAPIServer } from './aggregated-apiserver.ts';
import { registerAPIService } from './register.ts';

/**
 * The example aggregated server against a real control plane (`npm start`'s, on memory): front-proxy headers believed
 * only from the control plane's proxy client certificate, tokens checked by TokenReview, requests authorized by
 * SubjectAccessReview against the control plane's RBAC, and the objects `register` writes there.
 */

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789';
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const FLUNDERS = '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders';

describe('the example aggregated server delegating to the control plane', () => {
  let tmp: string;
  let cp: ControlPlane;
  let cpCA: string;
  let wardle: AggregatedAPIServer;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-wardle-'));
    const dataDir = join(tmp, 'data');
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    // The first line is the admin's (startControlPlane reads it); alice and bob are in group dev.
    await writeFile(
      join(dataDir, 'tokens.csv'),
      `admin-token-0123456789,kapi-admin,kapi-admin,"system:masters"\n${ALICE},alice,alice-uid,"dev"\n${BOB},bob,bob-uid,"dev"\n`,
      { mode: 0o600 },
    );
    cp = await startControlPlane({ port: 0, dataDir });
    cpCA = Buffer.from(
      parse(await readFile(cp.kubeconfigPath, 'utf8')).clusters[0].cluster['certificate-authority-data'],
      'base64',
    ).toString();
    wardle = await startAggregatedAPIServer({ port: 0, kubeconfig: cp.kubeconfigPath, onError: () => {} });
    // alice may do anything with flunders (RBAC in the control plane); bob nothing.
    const admin = { headers: bearer(cp.token) };
    const role = await callWith(cpCA, cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      ...admin,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'flunder-admin' },
        rules: [{ apiGroups: ['wardle.example.com'], resources: ['flunders', 'fischers'], verbs: ['*'] }],
      },
    });
    expect(role.status).toBe(201);
    const binding = await callWith(cpCA, cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      ...admin,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'alice-flunder-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flunder-admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      },
    });
    expect(binding.status).toBe(201);
  });

  afterAll(async () => {
    await wardle?.stop();
    await cp?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const at = (method: string, path: string, opts: CallOptions = {}): Promise<Reply> =>
    callWith(wardle.caBundle, wardle, method, path, opts);
  const whoami = (opts: CallOptions = {}): Promise<Reply> =>
    at('POST', WHOAMI, { ...opts, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  const frontProxied = (user: string, groups: string[]): Record<string, string> => ({
    'X-Remote-User': user,
    'X-Remote-Group': groups.join(','),
  });
  /** Polls until RBAC (which reads watch caches) and the SAR cache agree with `status`. */
  const eventually = async (f: () => Promise<Reply>, status: number): Promise<Reply> => {
    let r = await f();
    for (let i = 0; i < 50 && r.status !== status; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await f();
    }
    return r;
  };

  it('believes X-Remote-* headers from the control plane’s proxy client certificate, and from nobody else', async () => {
    const proxied = await whoami({
      client: cp.proxyClient,
      headers: { ...frontProxied('dana', []), 'X-Remote-Group': 'viewers', 'X-Remote-Extra-Scopes': 'a' },
    });
    expect(proxied.status).toBe(201);
    expect(proxied.body.status.userInfo).toEqual({
      username: 'dana',
      groups: ['viewers', 'system:authenticated'],
      extra: { scopes: ['a'] },
    });
    // Without the certificate the headers are ignored: the caller is anonymous (then the token, if any, decides).
    const forged = await whoami({ headers: frontProxied('dana', ['system:masters']) });
    expect(forged.status).toBe(403);
    expect(forged.body.message).toBe(
      'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
    const withToken = await whoami({ headers: { ...frontProxied('dana', ['system:masters']), authorization: `Bearer ${BOB}` } });
    expect(withToken.body.status.userInfo).toMatchObject({ username: 'bob', groups: ['dev', 'system:authenticated'] });
  });

  it('checks tokens with a TokenReview to the control plane', async () => {
    expect((await whoami({ headers: { authorization: `Bearer ${ALICE}` } })).body.status.userInfo).toMatchObject({
      username: 'alice',
      uid: 'alice-uid',
      groups: ['dev', 'system:authenticated'],
    });
    const bad = await at('GET', FLUNDERS, { headers: { authorization: 'Bearer not-a-token' } });
    expect(bad.status).toBe(401);
  });

  it('authorizes with a SubjectAccessReview to the control plane: RBAC allows alice and denies bob', async () => {
    const flunder = {
      apiVersion: 'wardle.example.com/v1alpha1',
      kind: 'Flunder',
      metadata: { name: 'f1' },
      spec: { reference: 'fish', referenceType: 'Fischer' },
    };
    const created = await eventually(() => at('POST', FLUNDERS, { headers: { authorization: `Bearer ${ALICE}` }, body: flunder }), 201);
    expect(created.status).toBe(201);
    expect(created.body.spec).toEqual(flunder.spec);
    const denied = await at('GET', FLUNDERS, { headers: { authorization: `Bearer ${BOB}` } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'flunders.wardle.example.com is forbidden: User "bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"',
    );
    // The front proxy speaks for a user: the SAR is about that user.
    const asAlice = await at('GET', `${FLUNDERS}/f1`, { client: cp.proxyClient, headers: frontProxied('alice', ['dev']) });
    expect(asAlice.status).toBe(200);
    const asBob = await at('GET', `${FLUNDERS}/f1`, { client: cp.proxyClient, headers: frontProxied('bob', ['dev']) });
    expect(asBob.status).toBe(403);
    // Anonymous requests are denied too, health checks allowed (kube's always-allow paths).
    expect((await at('GET', FLUNDERS)).status).toBe(403);
    expect((await at('GET', '/healthz')).status).toBe(200);
  });

  it('validates Flunders as sample-apiserver: a referenceType needs a reference, and is Flunder or Fischer', async () => {
    const post = (spec: unknown) =>
      at('POST', FLUNDERS, {
        headers: { authorization: `Bearer ${cp.token}` },
        body: { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { generateName: 'f-' }, spec },
      });
    const empty = await post({ referenceType: 'Flunder' });
    expect(empty.status).toBe(422);
    expect(empty.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "": cannot be empty if referenceType is Flunder', field: 'spec.reference' },
    ]);
    const other = await post({ reference: 'x', referenceType: 'Fish' });
    expect(other.status).toBe(422);
    expect(other.body.details.causes[0]).toMatchObject({ reason: 'FieldValueNotSupported', field: 'spec.referenceType' });
  });

  it('register writes the Namespace, the Service and Endpoints, and the APIService into the control plane', async () => {
    await registerAPIService({ kubeconfig: cp.kubeconfigPath, port: wardle.port, caBundle: wardle.caBundle });
    // Idempotent: a second run updates what the first created.
    await registerAPIService({ kubeconfig: cp.kubeconfigPath, port: wardle.port, caBundle: wardle.caBundle });
    const admin = { headers: bearer(cp.token) };
    const svc = await callWith(cpCA, cp, 'GET', '/api/v1/namespaces/wardle/services/api', admin);
    expect(svc.body.spec).toEqual({ type: 'ClusterIP', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: wardle.port }] });
    const eps = await callWith(cpCA, cp, 'GET', '/api/v1/namespaces/wardle/endpoints/api', admin);
    expect(eps.body.subsets).toEqual([
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: wardle.port, protocol: 'TCP' }] },
    ]);
    const apiService = await callWith(cpCA, cp, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.wardle.example.com', admin);
    expect(apiService.body.spec).toEqual({
      group: 'wardle.example.com',
      version: 'v1alpha1',
      service: { namespace: 'wardle', name: 'api', port: 443 },
      caBundle: Buffer.from(wardle.caBundle).toString('base64'),
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    });
  });
});

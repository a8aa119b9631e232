import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { runKubectl, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * kubectl against `npm start`'s control plane under RBAC: the admin (system:masters) creates roles and bindings with
 * `kubectl create`, a user holding only what they grant is let in and refused with kube's words, `kubectl auth can-i`
 * (with --as and --list) answers from RBAC, escalation is refused, aggregation reaches `view`, and `kubectl auth
 * reconcile` is idempotent.
 */

const [bin] = kubectlBinaries(['kubectl']);
const T = 60_000;
const BOB = 'bob-token-0123456789';
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

describe('kubectl under RBAC', () => {
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-kubectl-rbac-'));
    const dataDir = join(tmp, 'data');
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    // The first line is the admin's (startControlPlane reads it); bob is in group dev only.
    await writeFile(
      join(dataDir, 'tokens.csv'),
      `admin-token-0123456789,kapi-admin,kapi-admin,"system:masters"\n${BOB},bob,bob-uid,"dev"\n`,
      {
        mode: 0o600,
      },
    );
    cp = await startControlPlane({ port: 0, dataDir, storage: 'memory' });
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  const run = (...args: string[]) => runKubectl(bin as string, tmp, cp.kubeconfigPath, args);
  const ok = async (...args: string[]) => succeeded(args, await run(...args));
  const asBob = (...args: string[]) => run('--token', BOB, ...args);
  /** Polls `args` until it exits 0 (RBAC decides from watch caches, a few ms behind the write). */
  const eventually = async (...args: string[]) => {
    let r = await run(...args);
    for (let i = 0; i < 50 && r.code !== 0; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await run(...args);
    }
    return r;
  };

  it('creates roles and bindings with kubectl create, and a bound user is let in only where bound', { timeout: T }, async () => {
    expect(await ok('create', 'namespace', 'team-a')).toBe('namespace/team-a created\n');
    expect(await ok('create', 'role', 'cm-reader', '--verb=get,list,watch', '--resource=configmaps', '-n', 'team-a')).toBe(
      'role.rbac.authorization.k8s.io/cm-reader created\n',
    );
    expect(await ok('create', 'rolebinding', 'bob-cm', '--role=cm-reader', '--user=bob', '-n', 'team-a')).toBe(
      'rolebinding.rbac.authorization.k8s.io/bob-cm created\n',
    );
    expect(squash(await ok('get', 'rolebinding', 'bob-cm', '-n', 'team-a', '-o', 'wide'))).toMatch(
      /^NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS\nbob-cm Role\/cm-reader \S+ bob \n$/,
    );
    const allowed = await eventually('--token', BOB, 'get', 'configmaps', '-n', 'team-a');
    expect(allowed.code).toBe(0);
    const refused = await asBob('get', 'configmaps', '-n', 'default');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"\n',
    );
  });

  it('answers kubectl auth can-i, with --as and --list', { timeout: T }, async () => {
    expect(await ok('auth', 'can-i', 'list', 'configmaps', '-n', 'team-a', '--as', 'bob')).toBe('yes\n');
    const no = await run('auth', 'can-i', 'delete', 'configmaps', '-n', 'team-a', '--as', 'bob');
    expect([no.code, no.stdout]).toEqual([1, 'no\n']);
    expect(await ok('auth', 'can-i', '*', '*')).toBe('yes\n');
    const list = squash(await ok('auth', 'can-i', '--list', '-n', 'team-a', '--as', 'bob'));
    expect(list).toContain('configmaps [] [] [get list watch]');
    // system:basic-user and system:discovery, bound to every authenticated user.
    expect(list).toContain('selfsubjectaccessreviews.authorization.k8s.io [] [] [create]');
    expect(list).toContain('[/api/*] [] [get]');
    // bob asks for himself (SelfSubjectAccessReview under his own token).
    expect((await asBob('auth', 'can-i', 'get', 'configmaps', '-n', 'team-a')).stdout).toBe('yes\n');
    expect((await asBob('auth', 'can-i', 'get', 'secrets', '-n', 'team-a')).stdout).toBe('no\n');
  });

  it('refuses a role granting what its creator does not hold, with kube message', { timeout: T }, async () => {
    // bob may create roles in team-a (admin), but admin holds no widgets.
    await ok('create', 'rolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob', '-n', 'team-a');
    expect(
      (await eventually('--token', BOB, 'create', 'role', 'secret-reader', '--verb=get', '--resource=secrets', '-n', 'team-a')).code,
    ).toBe(0);
    const refused = await asBob('create', 'role', 'widget-reader', '--verb=get', '--resource=widgets', '-n', 'team-a');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "widget-reader" is forbidden: user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["example.kapi.dev"], Resources:["widgets"], Verbs:["get"]}\n',
    );
    // Binding cluster-admin is granting everything: refused too.
    const bind = await asBob('create', 'rolebinding', 'bob-all', '--clusterrole=cluster-admin', '--user=bob', '-n', 'team-a');
    expect(bind.code).toBe(1);
    expect(bind.stderr).toContain('is attempting to grant RBAC permissions not currently held');
  });

  it('aggregates a ClusterRole labelled aggregate-to-view into view', { timeout: T }, async () => {
    await ok('create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob', '-n', 'team-a');
    expect((await asBob('auth', 'can-i', 'list', 'widgets', '-n', 'team-a')).stdout).toBe('no\n');
    await ok('create', 'clusterrole', 'widget-viewer', '--verb=get,list,watch', '--resource=widgets');
    await ok('label', 'clusterrole', 'widget-viewer', 'rbac.authorization.k8s.io/aggregate-to-view=true');
    const r = await eventually('--token', BOB, 'get', 'widgets', '-n', 'team-a');
    expect(r.code).toBe(0);
    expect(await ok('get', 'clusterrole', 'view', '-o', 'jsonpath={.rules[*].resources}')).toContain('widgets');
  });

  it('reconciles with kubectl auth reconcile, and a second run changes nothing', { timeout: T }, async () => {
    const file = join(tmp, 'rbac.yaml');
    await writeFile(
      file,
      `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gizmo-ops
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gizmo-ops
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gizmo-ops
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: dev
`,
    );
    const first = await ok('auth', 'reconcile', '-f', file);
    expect(first).toContain('clusterrole.rbac.authorization.k8s.io/gizmo-ops reconciled');
    expect(first).toContain('clusterrolebinding.rbac.authorization.k8s.io/gizmo-ops reconciled');
    const second = await ok('auth', 'reconcile', '-f', file);
    expect(second).toContain('clusterrole.rbac.authorization.k8s.io/gizmo-ops reconciled');
    expect((await eventually('--token', BOB, 'get', 'events', '-n', 'default')).code).toBe(0);
    expect(await ok('get', 'clusterrole', 'gizmo-ops', '-o', 'jsonpath={.rules[0].verbs}')).toBe('["get","list"]');
  });

  it('serves the bootstrap policy, and probes need no token while everything else does', { timeout: T }, async () => {
    const roles = await ok('get', 'clusterroles', '-o', 'name');
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer'])
      expect(roles).toContain(`clusterrole.rbac.authorization.k8s.io/${name}\n`);
    expect(await ok('get', 'clusterrolebinding', 'cluster-admin', '-o', 'jsonpath={.subjects[0].name}')).toBe('system:masters');
    // No credential at all: system:anonymous, let in to the probes and /version only (system:public-info-viewer).
    const kubeconfig = await readFile(cp.kubeconfigPath, 'utf8');
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1] ?? '', 'base64');
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) expect((await anonymousGet(cp.url, path, ca)).status).toBe(200);
    const api = await anonymousGet(cp.url, '/api', ca);
    expect(api.status).toBe(403);
    expect(JSON.parse(api.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/api"');
    expect((await anonymousGet(cp.url, '/api/v1/namespaces/default/configmaps', ca)).status).toBe(403);
  });
});

/** A GET with no credential, verifying the server with `ca`. */
function anonymousGet(base: string, path: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

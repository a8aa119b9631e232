import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { BACKENDS, startBackend, type TestBackend } from './test-support/backends.ts';
import { consistentReadFallbacks } from './test-support/consistent-read-fallbacks.ts';
import { runKubectl, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * kubectl against `npm start`'s control plane under RBAC, on memory, etcd and Redis (one control plane per backend):
 * the admin (system:masters) creates roles and bindings with `kubectl create`, a user holding only what they grant is
 * let in and refused with kube's words, `kubectl auth can-i` (with --as and --list) answers from RBAC, escalation is
 * refused, aggregation reaches `view`, and `kubectl auth reconcile` is idempotent.
 */

const [bin] = kubectlBinaries(['kubectl']);
const T = 60_000;
const BOB = 'bob-token-0123456789';
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

describe.each(BACKENDS)('kubectl under RBAC on %s', (backendName) => {
  // One server per backend for this file, one control plane on it.
  let backend: TestBackend | undefined;
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    backend = await startBackend(backendName);
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
    cp = await startControlPlane({ port: 0, dataDir, storage: backend.storage() });
  }, T);
  afterAll(async () => {
    try {
      await stopTempControlPlane(cp, tmp);
    } finally {
      await backend?.stop();
    }
  }, T);

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

  it('binds a service account, stored and returned without the apiGroup Go leaves out', { timeout: T }, async () => {
    expect(await ok('create', 'rolebinding', 'builder-view', '--clusterrole=view', '--serviceaccount=team-a:builder', '-n', 'team-a')).toBe(
      'rolebinding.rbac.authorization.k8s.io/builder-view created\n',
    );
    // kubectl decodes typed objects (protobuf) and prints them with Go's omitempty: the server's own JSON is read raw.
    const binding = JSON.parse(await ok('get', '--raw', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/builder-view'));
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' }]);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
    expect(await ok('auth', 'can-i', 'list', 'configmaps', '-n', 'team-a', '--as', 'system:serviceaccount:team-a:builder')).toBe('yes\n');
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

  it('binds a ClusterRole of non-resource URLs to a group with kubectl create clusterrolebinding', { timeout: T }, async () => {
    // Not served here: a request that RBAC lets through is the mux's 404, one it stops is a 403.
    const before = await asBob('get', '--raw', '/logs/kube-apiserver.log');
    expect([before.code, before.stderr]).toEqual([
      1,
      'Error from server (Forbidden): forbidden: User "bob" cannot get path "/logs/kube-apiserver.log"\n',
    ]);
    expect(await ok('create', 'clusterrole', 'log-reader', '--verb=get', '--non-resource-url=/logs/*')).toBe(
      'clusterrole.rbac.authorization.k8s.io/log-reader created\n',
    );
    expect(await ok('create', 'clusterrolebinding', 'dev-logs', '--clusterrole=log-reader', '--group=dev')).toBe(
      'clusterrolebinding.rbac.authorization.k8s.io/dev-logs created\n',
    );
    expect(squash(await ok('get', 'clusterrolebinding', 'dev-logs', '-o', 'wide'))).toMatch(
      /^NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS\ndev-logs ClusterRole\/log-reader \S+ dev \n$/,
    );
    // RBAC decides from its watch caches, a few ms behind the write.
    let after = await asBob('get', '--raw', '/logs/kube-apiserver.log');
    for (let i = 0; i < 50 && after.stderr.includes('(Forbidden)'); i++) {
      await new Promise((res) => setTimeout(res, 100));
      after = await asBob('get', '--raw', '/logs/kube-apiserver.log');
    }
    expect(after.stderr).not.toContain('Forbidden');
    expect(after.code === 0 || after.stderr.includes('(NotFound)')).toBe(true);
    expect((await asBob('auth', 'can-i', 'get', '/logs/x')).stdout).toBe('yes\n');
    // Only the URLs named: others are still refused.
    expect((await asBob('get', '--raw', '/metrics')).stderr).toContain('(Forbidden)');
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
    // Invalid as well (a namespaced rule naming URLs): the escalation check comes first, as kube's does.
    const file = join(tmp, 'invalid-role.yaml');
    await writeFile(
      file,
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: bad-widget-reader\n  namespace: team-a\nrules:\n' +
        '- apiGroups: [example.kapi.dev]\n  resources: [widgets]\n  verbs: [get]\n  nonResourceURLs: [/x]\n',
    );
    const invalid = await asBob('create', '-f', file);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(
      'Error from server (Forbidden): error when creating "' +
        file +
        '": roles.rbac.authorization.k8s.io "bad-widget-reader" is forbidden: user "bob"',
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

  // Last, after every command above: no consistent read waited out the freshness timeout (3 s a read on etcd 3.4 in
  // issue 10); RBAC's own list-and-watch of the four kinds included.
  it('no consistent read waited out the freshness timeout', () => {
    expect(consistentReadFallbacks(cp.server)).toEqual({});
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

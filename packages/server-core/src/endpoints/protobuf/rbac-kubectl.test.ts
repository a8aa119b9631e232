import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { rbacResources } from '@kapi/authz';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../../scripts/kubectl-binaries.ts';
import { type Listening, listen } from '../../filters/serve.ts';
import { GenericAPIServer } from '../../server/generic-api-server.ts';

/**
 * The real kubectl creating rbac.authorization.k8s.io/v1 objects against a GenericAPIServer serving them: kubectl's
 * create role|clusterrole|rolebinding|clusterrolebinding and auth reconcile POST them as protobuf, which was a 415
 * before the codec knew these kinds. Each object is read back as JSON to check what the server made of the bytes.
 */

const execFileAsync = promisify(execFile);

const binaries = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']);

describe('kubectl creates RBAC objects (sent as protobuf)', () => {
  let server: GenericAPIServer;
  let http: Listening;
  let tmp: string;

  beforeAll(async () => {
    server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, ConfigMap, ...rbacResources] });
    await server.start();
    http = await listen(server.handler);
    tmp = await mkdtemp(join(tmpdir(), 'kapi-protobuf-rbac-kubectl-'));
    await writePlainKubeconfig(join(tmp, 'kubeconfig'), http.url);
  });
  afterAll(async () => {
    await http?.close();
    await server?.shutdown();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  let run = 0;
  async function kubectl(bin: string, ...args: string[]): Promise<string> {
    const { stdout } = await execFileAsync(bin, ['--cache-dir', join(tmp, `cache-${run++}`), ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: tmp, KUBECONFIG: join(tmp, 'kubeconfig') },
    });
    return stdout;
  }
  // biome-ignore lint/suspicious/noExplicitAny: objects read back are checked field by field
  const getJson = async (bin: string, ...args: string[]): Promise<any> => JSON.parse(await kubectl(bin, 'get', '-o', 'json', ...args));

  describe.each(binaries.map((b, i) => [basename(b), b, `v${i}`] as const))('%s', (_name, bin, suffix) => {
    it('create role, clusterrole (rules, non-resource URLs, aggregation rule), rolebinding, clusterrolebinding', {
      timeout: 60_000,
    }, async () => {
      await kubectl(
        bin,
        'create',
        'role',
        `r-${suffix}`,
        '--verb=get,list',
        '--resource=configmaps',
        '--resource-name=a',
        '--resource-name=b',
      );
      const role = await getJson(bin, 'role', `r-${suffix}`);
      expect(role.metadata.namespace).toBe('default');
      expect(role.rules).toEqual([{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] }]);

      await kubectl(bin, 'create', 'clusterrole', `cr-${suffix}`, '--verb=get', '--resource=namespaces,roles.rbac.authorization.k8s.io');
      await kubectl(
        bin,
        'create',
        'clusterrole',
        `urls-${suffix}`,
        '--verb=get',
        '--non-resource-url=/healthz',
        '--non-resource-url=/logs/*',
      );
      expect((await getJson(bin, 'clusterrole', `cr-${suffix}`)).rules).toEqual([
        { verbs: ['get'], apiGroups: [''], resources: ['namespaces'] },
        { verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] },
      ]);
      expect((await getJson(bin, 'clusterrole', `urls-${suffix}`)).rules).toEqual([
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] },
      ]);

      await kubectl(bin, 'create', 'clusterrole', `agg-${suffix}`, '--aggregation-rule=example.com/aggregate-to-monitoring=true');
      expect((await getJson(bin, 'clusterrole', `agg-${suffix}`)).aggregationRule).toEqual({
        clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }],
      });

      await kubectl(
        bin,
        'create',
        'rolebinding',
        `rb-${suffix}`,
        `--role=r-${suffix}`,
        '--user=alice',
        '--group=devs',
        '--serviceaccount=default:robot',
      );
      const rb = await getJson(bin, 'rolebinding', `rb-${suffix}`);
      expect(rb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `r-${suffix}` });
      expect(rb.subjects).toEqual([
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'ServiceAccount', name: 'robot', namespace: 'default', apiGroup: rb.subjects[2]?.apiGroup },
      ]);
      // A ServiceAccount subject's apiGroup is "" (kube's default; the server may echo it, Go's JSON would omit it).
      expect(rb.subjects[2]?.apiGroup ?? '').toBe('');

      await kubectl(bin, 'create', 'clusterrolebinding', `crb-${suffix}`, `--clusterrole=cr-${suffix}`, '--user=bob');
      const crb = await getJson(bin, 'clusterrolebinding', `crb-${suffix}`);
      expect(crb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `cr-${suffix}` });
      expect(crb.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }]);
    });

    it('auth reconcile -f creates a role and its binding, and a second run changes nothing', { timeout: 60_000 }, async () => {
      const file = join(tmp, `reconcile-${suffix}.yaml`);
      await writeFile(
        file,
        [
          'apiVersion: rbac.authorization.k8s.io/v1',
          'kind: Role',
          `metadata: {name: rec-${suffix}, namespace: default}`,
          'rules: [{verbs: [get, watch], apiGroups: [""], resources: [configmaps]}]',
          '---',
          'apiVersion: rbac.authorization.k8s.io/v1',
          'kind: RoleBinding',
          `metadata: {name: rec-${suffix}, namespace: default}`,
          `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rec-${suffix}}`,
          'subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: carol}]',
          '',
        ].join('\n'),
      );
      expect(await kubectl(bin, 'auth', 'reconcile', '-f', file)).toContain(`role.rbac.authorization.k8s.io/rec-${suffix} reconciled`);
      expect((await getJson(bin, 'role', `rec-${suffix}`)).rules).toEqual([
        { verbs: ['get', 'watch'], apiGroups: [''], resources: ['configmaps'] },
      ]);
      expect((await getJson(bin, 'rolebinding', `rec-${suffix}`)).subjects).toEqual([
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' },
      ]);
      await kubectl(bin, 'auth', 'reconcile', '-f', file);
    });
  });
});

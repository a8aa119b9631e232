import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { startBackend, type TestBackend } from './test-support/backends.ts';
import { type KubectlResult, runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * Server-side apply with the oldest kubectl we ship (1.27; kubectl-apply.test.ts drives 1.32 through the full suite,
 * which 1.27 and 1.33 pass as well): apply, a conflict in kube's words, --force-conflicts, and the client-side →
 * server-side migration, whose requests changed across kubectl versions. Memory backend only, to stay quick.
 */

const [KUBECTL] = kubectlBinaries(['kubectl.1.27']) as [string];
const T = 60_000;

let backend: TestBackend;
let cp: ControlPlane;
let tmp: string;
let core: CoreV1Api;
let files = 0;

beforeAll(async () => {
  backend = await startBackend('memory');
  ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-apply-127-', { storage: backend.storage() }));
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
}, T);
afterAll(async () => {
  await stopTempControlPlane(cp, tmp);
  await backend?.stop();
}, T);

async function apply(data: Record<string, string>, flags: readonly string[]): Promise<KubectlResult> {
  const file = join(tmp, `manifest-${files++}.yaml`);
  await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data }));
  return runKubectl(KUBECTL, tmp, cp.kubeconfigPath, ['apply', ...flags, '-f', file]);
}

const managers = async () =>
  ((await core.readNamespacedConfigMap({ name: 'c', namespace: 'default' })).metadata?.managedFields ?? [])
    .map((e) => `${e.manager}/${e.operation}:${JSON.stringify(e.fieldsV1)}`)
    .sort();

it('kubectl 1.27: client-side apply migrated to server-side, a second manager, a conflict, --force-conflicts', { timeout: T }, async () => {
  expect(succeeded(['apply'], await apply({ p: '1', q: '2' }, []))).toBe('configmap/c created\n');
  // The migration: q, applied client-side only, goes away; kubectl owns p through Apply.
  expect(succeeded(['apply'], await apply({ p: '1' }, ['--server-side']))).toBe('configmap/c serverside-applied\n');
  const cm = await core.readNamespacedConfigMap({ name: 'c', namespace: 'default' });
  expect(cm.data).toEqual({ p: '1' });
  expect(await managers()).toEqual([
    'kubectl-last-applied/Apply:{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}',
    'kubectl/Apply:{"f:data":{"f:p":{}}}',
  ]);

  const conflict = await apply({ p: '2' }, ['--server-side', '--field-manager=other']);
  expect(conflict.code).toBe(1);
  expect(conflict.stderr).toMatch(
    /^error: Apply failed with 1 conflict: conflict with "kubectl": \.data\.p\nPlease review the fields above/,
  );
  expect(succeeded(['apply'], await apply({ p: '2' }, ['--server-side', '--field-manager=other', '--force-conflicts']))).toBe(
    'configmap/c serverside-applied\n',
  );
  expect((await core.readNamespacedConfigMap({ name: 'c', namespace: 'default' })).data).toEqual({ p: '2' });
  expect(await managers()).toEqual([
    'kubectl-last-applied/Apply:{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}',
    'other/Apply:{"f:data":{"f:p":{}}}',
  ]);
});

import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * Cascading deletion with kubectl against the example control plane (memory backend), whose server chain runs the
 * garbage collector: `kubectl delete --cascade=background|foreground|orphan` of a ConfigMap owning Secrets.
 */

const binaries = kubectlBinaries(['kubectl']);
const T = 60_000;

describe.each(binaries.map((bin) => [basename(bin), bin] as const))('%s delete --cascade', (_name, bin) => {
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-gc-'));
  }, T);
  afterAll(() => stopTempControlPlane(cp, tmp), T);

  const run = (...args: string[]) => runKubectl(bin, tmp, cp.kubeconfigPath, args);
  const k = async (...args: string[]) => succeeded(args, await run(...args));

  /** A ConfigMap `owner` and Secrets `names` it owns (blocking its foreground deletion). */
  async function family(owner: string, names: string[]): Promise<void> {
    await k('create', 'configmap', owner);
    const uid = (await k('get', 'configmap', owner, '-o', 'jsonpath={.metadata.uid}')).trim();
    const manifest = join(tmp, `${owner}.json`);
    const items = names.map((name) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, blockOwnerDeletion: true }] },
    }));
    await writeFile(manifest, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await k('create', '-f', manifest);
  }

  const secrets = async (): Promise<string> => (await k('get', 'secrets', '-o', 'name')).trim();

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  it('background: the dependents go after the owner', { timeout: T }, async () => {
    await family('bg', ['bg-1', 'bg-2']);
    expect(await k('delete', 'configmap', 'bg', '--cascade=background')).toBe('configmap "bg" deleted\n');
    await until(async () => !(await secrets()).includes('secret/bg-'), 'the dependents are deleted');
  });

  it('foreground: kubectl waits for the owner, which goes after its dependents', { timeout: T }, async () => {
    await family('fg', ['fg-1']);
    expect(await k('delete', 'configmap', 'fg', '--cascade=foreground')).toBe('configmap "fg" deleted\n');
    expect(await secrets()).not.toContain('secret/fg-1');
    expect((await run('get', 'configmap', 'fg')).stderr).toContain('NotFound');
  });

  it('orphan: the dependents stay without the owner reference', { timeout: T }, async () => {
    await family('or', ['or-1']);
    expect(await k('delete', 'configmap', 'or', '--cascade=orphan')).toBe('configmap "or" deleted\n');
    await until(async () => (await run('get', 'configmap', 'or')).code !== 0, 'the owner is deleted');
    expect(await secrets()).toContain('secret/or-1');
    expect(await k('get', 'secret', 'or-1', '-o', 'jsonpath={.metadata.ownerReferences}')).toBe('');
  });
});

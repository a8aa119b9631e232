import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import { startChain, type TestChain } from '../test-support/chain.ts';

const execFileAsync = promisify(execFile);
const [kubectl] = kubectlBinaries(['kubectl']) as [string];

let c: TestChain;
let tmp: string;
beforeAll(async () => {
  c = await startChain();
  tmp = await mkdtemp(join(tmpdir(), 'kapi-aggregator-'));
  await writePlainKubeconfig(join(tmp, 'kubeconfig'), c.url);
});
afterAll(async () => {
  await c.stop();
  await rm(tmp, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(kubectl, ['--kubeconfig', join(tmp, 'kubeconfig'), ...args], { encoding: 'utf8' });
  return stdout;
}

describe('kubectl and APIServices', () => {
  it('kubectl get apiservices prints kube’s columns: NAME SERVICE AVAILABLE AGE', async () => {
    await expect
      .poll(async () => (await fetch(`${c.url}/apis/apiregistration.k8s.io/v1/apiservices/v1.authorization.k8s.io`)).status)
      .toBe(200);
    const out = await run('get', 'apiservices', 'v1.', 'v1.authorization.k8s.io');
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    expect(lines[1]).toMatch(/^v1\.\s+Local\s+True\s+\S+$/);
    expect(lines[2]).toMatch(/^v1\.authorization\.k8s\.io\s+Local\s+True\s+\S+$/);
  });

  it('kubectl create of a remote APIService, then get shows its Service and Unknown availability', async () => {
    const manifest = join(tmp, 'apiservice.yaml');
    await writeFile(
      manifest,
      [
        'apiVersion: apiregistration.k8s.io/v1',
        'kind: APIService',
        'metadata: {name: v1alpha1.wardle.example.com}',
        'spec:',
        '  group: wardle.example.com',
        '  version: v1alpha1',
        '  groupPriorityMinimum: 1000',
        '  versionPriority: 15',
        '  insecureSkipTLSVerify: true',
        '  service: {namespace: wardle, name: api}',
        '',
      ].join('\n'),
    );
    expect(await run('create', '-f', manifest)).toBe('apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com created\n');
    const out = await run('get', 'apiservice', 'v1alpha1.wardle.example.com', '--no-headers');
    expect(out).toMatch(/^v1alpha1\.wardle\.example\.com\s+wardle\/api\s+Unknown\s+\S+\n$/);
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import { type ControlPlane, startControlPlane } from '../../control-plane/src/control-plane.ts';
import { runKubectl, succeeded } from '../../control-plane/src/test-support/kubectl.ts';

/** `npm -w @kapi/example-aggregated-apiserver start` (src/main.ts) as a process, registering with a control plane. */

const PACKAGE_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const [bin] = kubectlBinaries(['kubectl']);
const T = 60_000;

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; output: string }>;
}

function start(args: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const child = spawn(process.execPath, ['--conditions=@kapi/source', 'src/main.ts', ...args], {
    cwd: PACKAGE_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  const exited = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
  return { child, output: () => output, exited };
}

describe('the example aggregated server as a process', () => {
  let tmp: string;
  let cp: ControlPlane;
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-wardle-main-'));
    cp = await startControlPlane({ port: 0, dataDir: join(tmp, 'data') });
  }, T);
  afterAll(async () => {
    for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
    await cp?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, T);

  it('answers a usage error for --register without --kubeconfig', { timeout: T }, async () => {
    const run = start(['--register']);
    started.push(run.child);
    const { code, output } = await run.exited;
    expect(code).toBe(2);
    expect(output).toMatch(/^--register needs --kubeconfig/);
  });

  it("without a kubeconfig outside a cluster, fails with client-go's in-cluster error", { timeout: T }, async () => {
    const { KUBERNETES_SERVICE_HOST: _h, KUBERNETES_SERVICE_PORT: _p, ...env } = process.env;
    const run = start(['--port', '0', '--data-dir', join(tmp, 'outside')], env);
    started.push(run.child);
    const { code, output } = await run.exited;
    expect(code).toBe(1);
    expect(output).toContain(
      'failed to start: unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
  });

  it('starts, registers with --register, serves flunders through the aggregator and stops on SIGTERM', { timeout: T }, async () => {
    const run = start(['--kubeconfig', cp.kubeconfigPath, '--data-dir', join(tmp, 'wardle'), '--port', '0', '--register']);
    started.push(run.child);
    for (let i = 0; i < 600 && !run.output().includes('registered APIService'); i++) {
      if (run.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(run.output()).toMatch(
      /^wardle aggregated API server serving https:\/\/127\.0\.0\.1:\d+ \(storage: memory\)\nregistered APIService v1alpha1\.wardle\.example\.com \(service wardle\/api\)\n/,
    );
    const kubectl = (...args: string[]) => runKubectl(bin as string, tmp, cp.kubeconfigPath, args);
    let r = await kubectl('get', 'flunders', '-A');
    for (let i = 0; i < 100 && r.code !== 0; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await kubectl('get', 'flunders', '-A');
    }
    expect(succeeded(['get', 'flunders', '-A'], r)).toBe('');
    expect(r.stderr).toBe('No resources found\n');
    run.child.kill('SIGTERM');
    const { code, output } = await run.exited;
    expect(code).toBe(0);
    expect(output).toContain('SIGTERM: shutting down');
  });
});

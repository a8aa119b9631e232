import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ControlPlane, type ControlPlaneOptions, startControlPlane } from '../control-plane.ts';

/** Dev-only (excluded from the build): what the kubectl end-to-end suites share — a control plane in a temp dir, kubectl run in it. */

const execFileAsync = promisify(execFile);

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** A control plane on a free port whose data dir is `<tmp>/data`, `tmp` a new directory named after `prefix`. */
export async function startTempControlPlane(
  prefix: string,
  options: Omit<ControlPlaneOptions, 'port' | 'dataDir'> = {},
): Promise<{ cp: ControlPlane; tmp: string }> {
  const tmp = await mkdtemp(join(tmpdir(), prefix));
  return { cp: await startControlPlane({ ...options, port: 0, dataDir: join(tmp, 'data') }), tmp };
}

/** Stops what `startTempControlPlane` started, however far it got, and removes its directory. */
export async function stopTempControlPlane(cp: ControlPlane | undefined, tmp: string | undefined): Promise<void> {
  await cp?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
}

/** kubectl's arguments: `kubeconfig`'s server and user, the discovery cache under `tmp`, then `args`. */
export function kubectlArgs(tmp: string, kubeconfig: string, args: readonly string[]): string[] {
  return ['--kubeconfig', kubeconfig, '--cache-dir', join(tmp, 'cache'), ...args];
}

/** kubectl's environment: its home and cache under `tmp`, nothing of the user's. */
export function kubectlEnv(tmp: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: tmp, KUBECACHEDIR: join(tmp, 'cache') };
}

/** Runs kubectl (see above); resolves with the exit code instead of throwing (a binary that cannot start still throws). */
export async function runKubectl(
  bin: string,
  tmp: string,
  kubeconfig: string,
  args: readonly string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<KubectlResult> {
  try {
    const { stdout, stderr } = await execFileAsync(bin, kubectlArgs(tmp, kubeconfig, args), {
      env: { ...kubectlEnv(tmp), ...extraEnv },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    if (typeof e.code !== 'number') throw err;
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code };
  }
}

/** `r`'s stdout; throws with kubectl's stderr when `args` exited non-zero. */
export function succeeded(args: readonly string[], r: KubectlResult): string {
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

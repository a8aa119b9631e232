import { freePort } from '@kapi/test-servers';
import { kubeconfigCredentials, startMain, waitForServing } from '../test-process.ts';

/**
 * Dev-only (excluded from the build): several `npm start` processes (src/main.ts) on one backend, as kube-apiserver
 * replicas on one etcd. They share a data directory, so one admin token and one serving CA reach all of them: the
 * first process creates its files, the others start once it serves and reuse them.
 */

export interface KapiProcess {
  readonly index: number;
  readonly url: string;
  readonly pid: number;
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGKILL by PID, as a crash; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM by PID and the exit it makes (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Its stdout, then its stderr. */
  output(): string;
}

export interface KapiProcesses {
  readonly processes: readonly KapiProcess[];
  /** The admin's bearer token and the serving CA (PEM), from the shared data directory. */
  readonly token: string;
  readonly ca: string;
  /** Starts process `index` again (killing it first if it runs) on the same port, with a new PID and fresh caches. */
  restart(index: number): Promise<KapiProcess>;
  stop(): Promise<void>;
}

/**
 * Starts process `index` on `port`; a fresh one by default, chosen below the ephemeral range (freePort) because a
 * restart comes back on the same port, which a port the OS picked (an ephemeral one) could meanwhile have been given
 * to one of the test's outgoing connections.
 */
async function startOne(index: number, storage: string, dataDir: string, port?: number): Promise<KapiProcess> {
  const proc = startMain(['--port', String(port ?? (await freePort())), '--data-dir', dataDir, '--storage', storage]);
  const url = await waitForServing(proc).catch(async (err: unknown) => {
    await proc.kill();
    throw new Error(`kapi process ${index}: ${err instanceof Error ? err.message : String(err)}`);
  });
  return {
    index,
    url,
    pid: proc.child.pid as number,
    alive: () => proc.child.exitCode === null && proc.child.signalCode === null,
    kill: async () => {
      await proc.kill();
    },
    stop: async () => {
      await proc.stop();
    },
    output: () => proc.stdout() + proc.stderr(),
  };
}

/** Starts `count` processes of src/main.ts on `storage` sharing `dataDir` (the first alone, then the rest together). */
export async function startKapiProcesses(storage: string, count: number, dataDir: string): Promise<KapiProcesses> {
  const processes: KapiProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
  };
  try {
    processes.push(await startOne(0, storage, dataDir));
    const rest = await Promise.allSettled(Array.from({ length: count - 1 }, (_, i) => startOne(i + 1, storage, dataDir)));
    for (const r of rest) if (r.status === 'fulfilled') processes.push(r.value);
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const { token, ca } = await kubeconfigCredentials(dataDir);
    const restart = async (index: number) => {
      const old = processes[index];
      if (!old) throw new Error(`no kapi process ${index}`);
      await old.kill();
      const started = await startOne(index, storage, dataDir, Number(new URL(old.url).port));
      processes[index] = started;
      return started;
    };
    return { processes, token, ca, restart, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

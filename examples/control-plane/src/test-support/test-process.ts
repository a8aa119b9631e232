import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Dev-only (excluded from the build): a process a test or bench starts — `npm start`'s program (src/main.ts) or
 * kubectl — with its stdout and stderr kept, a wait for a line it prints, and its exit. Every one started is tracked
 * until it exits, so a suite's afterEach/afterAll can kill by PID whatever a failed test left running.
 */

/** examples/control-plane, where src/main.ts is run from as `npm start` runs it. */
export const PACKAGE_DIR = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
/** How long src/main.ts may take to print its "serving" line. */
export const STARTUP_MS = 60_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface TestProcessOptions {
  /** Written to stdin, which is then closed (default: no stdin). */
  input?: string;
  /** The whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Default PACKAGE_DIR. */
  cwd?: string;
  /** stderr goes to this process's stderr instead of being kept (a bench shows it as it comes). */
  inheritStderr?: boolean;
}

export interface TestProcess {
  readonly child: ChildProcess;
  /** Resolves once the process has exited and its output is closed; rejects if it could not start. */
  readonly exited: Promise<Exit>;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves with the matches of `re` in stdout once there are `count` of them (default 1); rejects with the output
   * if the process exits first or after `timeoutMs` (default STARTUP_MS).
   */
  waitForStdout(re: RegExp, opts?: { count?: number; timeoutMs?: number }): Promise<RegExpExecArray[]>;
  /** SIGTERM by PID and the exit it makes; SIGKILL if it has not exited after `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<Exit>;
  /** SIGKILL by PID, as a crash, and its exit. */
  kill(): Promise<Exit>;
}

/** Processes started and not yet exited. */
const running = new Set<TestProcess>();

/** Starts `command` with `args` (in PACKAGE_DIR unless told), keeping its output. */
export function startProcess(command: string, args: readonly string[], opts: TestProcessOptions = {}): TestProcess {
  const child = spawn(command, args, {
    cwd: opts.cwd ?? PACKAGE_DIR,
    env: opts.env,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', opts.inheritStderr ? 'inherit' : 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  // A spawn error reaches whoever awaits `exited`; it must not also be an unhandled rejection.
  exited.catch(() => {}).finally(() => running.delete(proc));
  if (opts.input !== undefined) child.stdin?.end(opts.input);

  const signal = (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  };
  const proc: TestProcess = {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStdout: (re, { count = 1, timeoutMs = STARTUP_MS } = {}) =>
      new Promise((resolve, reject) => {
        const global = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
        const done = (f: () => void) => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          f();
        };
        const check = () => {
          const matches = [...stdout.matchAll(global)];
          if (matches.length >= count) done(() => resolve(matches));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`no ${count} × ${re} in stdout within ${timeoutMs} ms:\n${stdout}\n${stderr}`))),
          timeoutMs,
        );
        // After the listener that keeps stdout, so `stdout` already holds the chunk.
        child.stdout?.on('data', check);
        exited.then(
          (e) =>
            done(() => reject(new Error(`${command} exited (${e.code ?? e.signal}) before ${re} in stdout:\n${e.stdout}\n${e.stderr}`))),
          (err: unknown) => done(() => reject(err)),
        );
        check();
      }),
    stop: async (graceMs = 10_000) => {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    kill: () => {
      signal('SIGKILL');
      return exited;
    },
  };
  running.add(proc);
  return proc;
}

/** `npm start`'s program: src/main.ts run by this Node with the source condition, `args` its flags. */
export function startMain(args: readonly string[], opts: Omit<TestProcessOptions, 'cwd'> = {}): TestProcess {
  return startProcess(process.execPath, ['--conditions=@kapi/source', 'src/main.ts', ...args], opts);
}

/** How long one kubectl command may run before it is killed (a hung one fails its test with its output). */
const KUBECTL_MS = 30_000;

/** Runs kubectl (from PATH) with `kubeconfig` and `args`, `input` on its stdin; its stdout, or an error with its output on a non-zero exit. */
export async function kubectl(kubeconfig: string, args: readonly string[], input?: string): Promise<string> {
  const run = startProcess('kubectl', ['--kubeconfig', kubeconfig, ...args], { input: input ?? '' });
  const timer = setTimeout(() => run.kill(), KUBECTL_MS);
  const exit = await run.exited.finally(() => clearTimeout(timer));
  if (exit.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${exit.code ?? exit.signal}:\n${exit.stdout}\n${exit.stderr}`);
  return exit.stdout;
}

/** Waits for src/main.ts's "serving" lines (one per process, or per worker with --workers); the URL of the first. */
export async function waitForServing(proc: TestProcess, opts: { count?: number; timeoutMs?: number } = {}): Promise<string> {
  const [first] = await proc.waitForStdout(/kapi example control plane serving (https?:\/\/\S+)/, opts);
  return first?.[1] as string;
}

/** The admin's bearer token and the serving CA (PEM) of the kubeconfig src/main.ts wrote in `dataDir`. */
export async function kubeconfigCredentials(dataDir: string): Promise<{ token: string; ca: string }> {
  const path = join(dataDir, 'kubeconfig');
  const kubeconfig = await readFile(path, 'utf8');
  const token = /token: (\S+)/.exec(kubeconfig)?.[1];
  const caData = /certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1];
  if (!token || !caData) throw new Error(`no token or certificate-authority-data in ${path}`);
  return { token, ca: Buffer.from(caData, 'base64').toString('utf8') };
}

/** SIGKILLs (by PID) every process started here that has not exited, and waits for them: a suite's afterEach/afterAll. */
export async function killTestProcesses(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill().catch(() => undefined)));
}

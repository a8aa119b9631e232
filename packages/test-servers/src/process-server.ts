import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A server process started for a test run; stopped by its PID. */
export interface TestServer {
  readonly host: string;
  readonly port: number;
  /** The PID of the running process (undefined while stopped). */
  readonly pid: number | undefined;
  /** Kills the process without a clean shutdown (SIGKILL), as a crash would; data stays for restart(). */
  kill(): Promise<void>;
  /** Starts the process again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops the process and removes its data. */
  stop(): Promise<void>;
}

/** A started process that can also be stopped cleanly and started again by hand (a cluster member). */
export interface ProcessHandle extends TestServer {
  /** Stops the process cleanly (SIGTERM, waits for its exit); data stays for start(). */
  terminate(): Promise<void>;
  /** Starts the process again with the same data when it is not running; waits until it is ready. */
  start(): Promise<void>;
}

export interface ProcessSpec {
  /** Binary name on PATH. */
  command: string;
  /** Debian package that provides it, for the error message. */
  debianPackage: string;
  args: (dataDir: string) => string[];
  host: string;
  port: number;
  /** Resolves once the server answers; rejects if it cannot within the deadline. */
  ready: (deadline: number) => Promise<void>;
}

/** Finds `command` on PATH; a missing binary is an error, never a skip (CI must fail when it cannot start a server). */
export function requireBinary(command: string, debianPackage: string): string {
  const r = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  if (r.status !== 0 || !path) {
    throw new Error(`${command} is not installed: install the Debian package ${debianPackage} (.ci/run does) to run these tests`);
  }
  return path;
}

/** A temp folder on tmpfs when there is one (etcd fsyncs; tests do not need durability). */
function dataRoot(): string {
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test runner that exits without calling stop() must not leave servers behind.
  process.on('exit', () => {
    for (const child of running) if (child.pid) child.kill('SIGKILL');
  });
}

export async function startProcess(spec: ProcessSpec): Promise<ProcessHandle> {
  const binary = requireBinary(spec.command, spec.debianPackage);
  const dataDir = mkdtempSync(join(dataRoot(), `kapi-${spec.command}-`));
  installExitHook();
  let child: ChildProcess | undefined;
  let output = '';

  const launch = async (): Promise<void> => {
    output = '';
    const c = spawn(binary, spec.args(dataDir), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    running.add(c);
    const keep = (b: Buffer) => {
      output = (output + b.toString()).slice(-4000);
    };
    c.stdout?.on('data', keep);
    c.stderr?.on('data', keep);
    const exited = new Promise<never>((_, reject) => {
      c.once('exit', (code, signal) => reject(new Error(`${spec.command} exited (${code ?? signal}) before it was ready:\n${output}`)));
      c.once('error', reject);
    });
    exited.catch(() => undefined);
    c.once('exit', () => running.delete(c));
    try {
      await Promise.race([spec.ready(Date.now() + 20_000), exited]);
    } catch (err) {
      c.kill('SIGKILL');
      throw err;
    }
  };

  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill(signal);
    if (signal !== 'SIGKILL') {
      // A clean stop that hangs is finished off, so a test never waits forever.
      const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(t);
      return;
    }
    await gone;
  };
  const kill = () => end('SIGKILL');

  await launch();
  return {
    host: spec.host,
    port: spec.port,
    get pid() {
      return child?.pid;
    },
    kill,
    terminate: () => end('SIGTERM'),
    start: async () => {
      if (child && child.exitCode === null && child.signalCode === null) return;
      await launch();
    },
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it resolves true or the deadline passes. */
export async function poll(what: string, deadline: number, probe: () => Promise<boolean>): Promise<void> {
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${what} did not become ready in time${last instanceof Error ? `: ${last.message}` : ''}`);
}

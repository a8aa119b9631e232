import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireBinary, startEtcd, startRedis } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// `npm start` (src/main.ts) as a process, driven by the real kubectl, on every storage backend.

const PACKAGE_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const STARTUP_MS = 60_000;

/** Every process this file spawned and has not seen exit; killed by PID after each test. */
const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});
afterAll(async () => {
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kapi-main-'));
  tempDirs.push(dir);
  return dir;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface Started {
  child: ChildProcess;
  exited: Promise<Exit>;
  stdout: () => string;
  stderr: () => string;
}

function start(command: string, args: string[], input?: string): Started {
  const child = spawn(command, args, { cwd: PACKAGE_DIR, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
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
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  child.stdin?.end(input ?? '');
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Runs src/main.ts to completion (for flags that make it exit). */
function runMain(args: string[]): Promise<Exit> {
  return start(process.execPath, ['--conditions=@kapi/source', 'src/main.ts', ...args]).exited;
}

interface Plane extends Started {
  url: string;
  dataDir: string;
  kubeconfig: string;
}

/** Starts `npm start`'s program on a free port and waits for its "serving" line. */
async function startMain(storage: string, dataDir: string): Promise<Plane> {
  const started = start(process.execPath, [
    '--conditions=@kapi/source',
    'src/main.ts',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--storage',
    storage,
  ]);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "serving" line within ${STARTUP_MS}ms:\n${started.stdout()}\n${started.stderr()}`)),
      STARTUP_MS,
    );
    const check = () => {
      const m = /kapi example control plane serving (https:\/\/\S+) \(storage: (\S+)\)\n.*get widgets\n/.exec(started.stdout());
      if (m) {
        clearTimeout(timer);
        started.child.stdout?.off('data', check);
        expect(m[2]).toBe(storage);
        resolve(m[1] as string);
      }
    };
    started.child.stdout?.on('data', check);
    started.exited.then(
      (e) => {
        clearTimeout(timer);
        reject(new Error(`src/main.ts exited (${e.code ?? e.signal}) before serving:\n${e.stdout}\n${e.stderr}`));
      },
      (err: unknown) => reject(err),
    );
  });
  const kubeconfig = join(dataDir, 'kubeconfig');
  expect(started.stdout()).toContain(`kubectl --kubeconfig ${kubeconfig} get widgets`);
  return { ...started, url, dataDir, kubeconfig };
}

/** SIGTERM (by PID) and the exit it must make: 0 after a graceful shutdown. */
async function stopMain(plane: Plane): Promise<Exit> {
  plane.child.kill('SIGTERM');
  const exit = await plane.exited;
  expect(exit.stdout).toContain('SIGTERM: shutting down');
  expect({ code: exit.code, signal: exit.signal, stderr: exit.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
  return exit;
}

/** Runs kubectl (from PATH) against the plane's kubeconfig; fails on a non-zero exit. */
async function kubectl(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const run = start('kubectl', ['--kubeconfig', kubeconfig, ...args], input);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
  const exit = await run.exited.finally(() => clearTimeout(timer));
  if (exit.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${exit.code ?? exit.signal}:\n${exit.stdout}\n${exit.stderr}`);
  return exit.stdout;
}

const widgetYAML = (name: string, color: string, replicas: number) => `apiVersion: example.kapi.dev/v1
kind: Widget
metadata:
  name: ${name}
spec:
  color: ${color}
  replicas: ${replicas}
`;

/** certificate-authority-data of the kubeconfig's cluster. */
async function caData(kubeconfig: string): Promise<string> {
  const m = /certificate-authority-data:\s*(\S+)/.exec(await readFile(kubeconfig, 'utf8'));
  if (!m) throw new Error(`no certificate-authority-data in ${kubeconfig}`);
  return m[1] as string;
}

/** Creates widget w1 with kubectl and reads it back (table, jsonpath, JSON). */
async function createAndGetWidget(plane: Plane): Promise<void> {
  expect(await kubectl(plane.kubeconfig, ['create', '-f', '-'], widgetYAML('w1', 'red', 3))).toBe('widget.example.kapi.dev/w1 created\n');
  const table = await kubectl(plane.kubeconfig, ['get', 'widgets']);
  const lines = table.trimEnd().split('\n');
  expect(lines[0]?.split(/\s+/).slice(0, 3)).toEqual(['NAME', 'REPLICAS', 'READY']);
  expect(lines[1]?.split(/\s+/).slice(0, 2)).toEqual(['w1', '3']);
  expect(lines).toHaveLength(2);
  expect(await kubectl(plane.kubeconfig, ['get', 'wd', 'w1', '-o', 'jsonpath={.spec.color}/{.spec.replicas}'])).toBe('red/3');
  const json = JSON.parse(await kubectl(plane.kubeconfig, ['get', 'widget.example.kapi.dev', 'w1', '-o', 'json']));
  expect(json).toMatchObject({
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Widget',
    metadata: { name: 'w1', namespace: 'default' },
    spec: { color: 'red', replicas: 3 },
  });
  // The kubeconfig points at the URL printed, over HTTPS verified with its CA.
  expect(await kubectl(plane.kubeconfig, ['config', 'view', '-o', 'jsonpath={.clusters[0].cluster.server}'])).toBe(plane.url);
  expect(await caData(plane.kubeconfig)).not.toBe('');
}

/** After a restart on the same backend and data dir: the widget survived, and the old CA and token still work. */
async function expectSurvived(before: { ca: string; crt: string; kubeconfigText: string; uid: string }, plane: Plane): Promise<void> {
  expect(await readFile(join(plane.dataDir, 'apiserver.crt'), 'utf8')).toBe(before.crt);
  expect(await caData(plane.kubeconfig)).toBe(before.ca);
  const json = JSON.parse(await kubectl(plane.kubeconfig, ['get', 'widget', 'w1', '-o', 'json']));
  expect(json).toMatchObject({ metadata: { name: 'w1', uid: before.uid }, spec: { color: 'red', replicas: 3 } });
  // The kubeconfig written before the restart (another port) still authenticates and verifies the new server.
  const oldKubeconfig = join(await tempDir(), 'kubeconfig');
  await writeFile(oldKubeconfig, before.kubeconfigText, { mode: 0o600 });
  expect(await kubectl(oldKubeconfig, ['--server', plane.url, 'get', 'widget', 'w1', '-o', 'jsonpath={.spec.color}'])).toBe('red');
  // ... and the widget can still change.
  expect(await kubectl(plane.kubeconfig, ['patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"color":"green"}}'])).toBe(
    'widget.example.kapi.dev/w1 patched\n',
  );
  expect(await kubectl(plane.kubeconfig, ['get', 'widget', 'w1', '-o', 'jsonpath={.spec.color}'])).toBe('green');
}

async function snapshot(plane: Plane) {
  return {
    ca: await caData(plane.kubeconfig),
    crt: await readFile(join(plane.dataDir, 'apiserver.crt'), 'utf8'),
    kubeconfigText: await readFile(plane.kubeconfig, 'utf8'),
    uid: (await kubectl(plane.kubeconfig, ['get', 'widget', 'w1', '-o', 'jsonpath={.metadata.uid}'])).trim(),
  };
}

beforeAll(() => {
  requireBinary('kubectl', 'kubectl');
});

describe('npm start (src/main.ts)', () => {
  it(
    'prints its usage with --help',
    async () => {
      const exit = await runMain(['--help']);
      expect(exit.code).toBe(0);
      expect(exit.stdout).toMatch(/^Usage: npm start -- \[--storage memory\|etcd:\/\/host:port\|redis:\/\/host:port\] \[--port 6443\]/);
      expect(exit.stdout).toContain('--data-dir');
    },
    STARTUP_MS,
  );

  it(
    'rejects an unknown storage with a clear message and no stack trace',
    async () => {
      const exit = await runMain(['--storage', 'bogus', '--port', '0', '--data-dir', await tempDir()]);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(exit.stderr).toContain('--storage must be memory, etcd://host:port, etcds://host:port or redis://host:port, not "bogus"');
      expect(exit.stderr).toContain('Usage: npm start');
      expect(exit.stderr).not.toMatch(/\n\s+at /);
      expect(exit.stdout).not.toContain('serving');
    },
    STARTUP_MS,
  );

  it(
    'rejects an unknown flag and a bad port with the usage',
    async () => {
      const unknown = await runMain(['--bogus']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("Unknown option '--bogus'");
      expect(unknown.stderr).toContain('Usage: npm start');
      expect(unknown.stderr).not.toMatch(/\n\s+at /);
      const port = await runMain(['--port', 'http']);
      expect(port.code).toBe(2);
      expect(port.stderr).toContain('--port must be a port number, not "http"');
    },
    STARTUP_MS,
  );

  it(
    'serves kubectl with --storage memory and shuts down gracefully on SIGTERM, ending open watches',
    async () => {
      const dataDir = await tempDir();
      const plane = await startMain('memory', dataDir);
      await createAndGetWidget(plane);
      // An open watch must not hold up the shutdown.
      const watch = start('kubectl', ['--kubeconfig', plane.kubeconfig, 'get', 'widgets', '--watch', '--no-headers']);
      await expect.poll(() => watch.stdout(), { timeout: 30_000 }).toMatch(/^w1\s+3/);
      const t0 = Date.now();
      await stopMain(plane);
      expect(Date.now() - t0).toBeLessThan(10_000);
    },
    2 * STARTUP_MS,
  );

  // Each backend as a user runs it: a server they started, the URL on --storage.
  const backends: [string, () => Promise<{ port: number; stop(): Promise<void> }>][] = [
    ['etcd', startEtcd],
    ['redis', startRedis],
  ];
  describe.each(backends)('--storage %s://', (scheme, startBackend) => {
    let backend: { port: number; stop(): Promise<void> };
    beforeAll(async () => {
      backend = await startBackend();
    }, 30_000);
    afterAll(async () => {
      await backend?.stop();
    });

    it(
      'serves kubectl, and keeps the widget and the certificate across a restart',
      async () => {
        const storage = `${scheme}://127.0.0.1:${backend.port}`;
        const dataDir = await tempDir();
        const first = await startMain(storage, dataDir);
        await createAndGetWidget(first);
        const before = await snapshot(first);
        await stopMain(first);
        const second = await startMain(storage, dataDir);
        await expectSurvived(before, second);
        await stopMain(second);
      },
      3 * STARTUP_MS,
    );
  });
});

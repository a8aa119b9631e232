import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary, startEtcd, startRedis } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Exit,
  killTestProcesses,
  kubectl,
  STARTUP_MS,
  startMain,
  startProcess,
  type TestProcess,
} from './test-support/test-process.ts';

// `npm start` (src/main.ts) as a process, driven by the real kubectl, on every storage backend.

const tempDirs: string[] = [];

// Whatever a test left running is killed by PID.
afterEach(killTestProcesses);
afterAll(async () => {
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kapi-main-'));
  tempDirs.push(dir);
  return dir;
}

/** Runs src/main.ts to completion (for flags that make it exit). */
function runMain(args: string[]): Promise<Exit> {
  return startMain(args).exited;
}

interface Plane extends TestProcess {
  url: string;
  dataDir: string;
  kubeconfig: string;
}

/** Starts `npm start`'s program on a free port and waits for its "serving" line. */
async function startPlane(storage: string, dataDir: string): Promise<Plane> {
  const started = startMain(['--port', '0', '--data-dir', dataDir, '--storage', storage]);
  const [m] = await started.waitForStdout(/kapi example control plane serving (https:\/\/\S+) \(storage: (\S+)\)\n.*get widgets\n/);
  expect(m?.[2]).toBe(storage);
  const kubeconfig = join(dataDir, 'kubeconfig');
  expect(started.stdout()).toContain(`kubectl --kubeconfig ${kubeconfig} get widgets`);
  return Object.assign(started, { url: m?.[1] as string, dataDir, kubeconfig });
}

/** SIGTERM (by PID) and the exit it must make: 0 after a graceful shutdown. */
async function stopPlane(plane: Plane): Promise<Exit> {
  const exit = await plane.stop();
  expect(exit.stdout).toContain('SIGTERM: shutting down');
  expect({ code: exit.code, signal: exit.signal, stderr: exit.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
  return exit;
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
      const plane = await startPlane('memory', dataDir);
      await createAndGetWidget(plane);
      // An open watch must not hold up the shutdown.
      const watch = startProcess('kubectl', ['--kubeconfig', plane.kubeconfig, 'get', 'widgets', '--watch', '--no-headers'], { input: '' });
      await expect.poll(() => watch.stdout(), { timeout: 30_000 }).toMatch(/^w1\s+3/);
      const t0 = Date.now();
      await stopPlane(plane);
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
        const first = await startPlane(storage, dataDir);
        await createAndGetWidget(first);
        const before = await snapshot(first);
        await stopPlane(first);
        const second = await startPlane(storage, dataDir);
        await expectSurvived(before, second);
        await stopPlane(second);
      },
      3 * STARTUP_MS,
    );
  });
});

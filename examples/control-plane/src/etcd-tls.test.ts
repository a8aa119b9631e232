import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EtcdServer, makeTestCA, requireBinary, startEtcd } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { etcdTLSFromFlags } from './etcd-tls-flags.ts';
import { killTestProcesses, kubectl, STARTUP_MS, startMain } from './test-support/test-process.ts';

// --storage etcds://… with --etcd-cafile, --etcd-certfile and --etcd-keyfile (kube-apiserver's flags): src/main.ts as a
// process on a real etcd serving TLS with --client-cert-auth, the CA and certificates made at run time.

let etcd: EtcdServer;
let dir: string;
/** The CA, the client certificate and its key as files, as an operator passes them; `otherCA` did not sign etcd's. */
let files: { ca: string; cert: string; key: string; otherCA: string };

beforeAll(async () => {
  requireBinary('kubectl', 'kubectl');
  etcd = await startEtcd({ tls: true });
  dir = await mkdtemp(join(tmpdir(), 'kapi-etcd-tls-'));
  const tls = etcd.tls;
  if (!tls) throw new Error('startEtcd({ tls: true }) gave no TLS credentials');
  files = { ca: join(dir, 'ca.crt'), cert: join(dir, 'client.crt'), key: join(dir, 'client.key'), otherCA: join(dir, 'other-ca.crt') };
  await writeFile(files.ca, tls.ca.pem);
  await writeFile(files.otherCA, (await makeTestCA('another-ca')).pem);
  await writeFile(files.cert, tls.client.cert);
  await writeFile(files.key, tls.client.key, { mode: 0o600 });
});
// Whatever a test left running is killed by PID.
afterEach(killTestProcesses);
afterAll(async () => {
  await etcd?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const main = (args: string[]) => startMain(['--port', '0', ...args]);

const storageURL = () => `etcds://127.0.0.1:${etcd.port}/kapi-tls-${Date.now()}`;

describe('--etcd-cafile, --etcd-certfile, --etcd-keyfile', () => {
  it('read the PEM files for an etcds:// --storage; none gives no TLS options', () => {
    expect(etcdTLSFromFlags({}, 'etcd://127.0.0.1:2379')).toBeUndefined();
    const tls = etcdTLSFromFlags({ 'etcd-cafile': files.ca, 'etcd-certfile': files.cert, 'etcd-keyfile': files.key }, storageURL());
    expect(tls).toEqual({ ca: etcd.tls?.ca.pem, cert: etcd.tls?.client.cert, key: etcd.tls?.client.key });
    expect(etcdTLSFromFlags({ 'etcd-cafile': files.ca }, storageURL())).toEqual({ ca: etcd.tls?.ca.pem });
  });

  it('refuse a storage that is not etcds://, a certificate without its key, a missing file and a file that is not PEM', () => {
    expect(() => etcdTLSFromFlags({ 'etcd-cafile': files.ca }, 'etcd://127.0.0.1:2379')).toThrow(
      /are for TLS to etcd: use --storage etcds:\/\/host:port, not "etcd:\/\/127\.0\.0\.1:2379"/,
    );
    expect(() => etcdTLSFromFlags({ 'etcd-certfile': files.cert }, storageURL())).toThrow('--etcd-certfile and --etcd-keyfile go together');
    expect(() => etcdTLSFromFlags({ 'etcd-cafile': join(dir, 'nope.crt') }, storageURL())).toThrow(
      /^--etcd-cafile: cannot read ".*nope\.crt": ENOENT: no such file or directory/,
    );
    expect(() => etcdTLSFromFlags({ 'etcd-certfile': files.key, 'etcd-keyfile': files.key }, storageURL())).toThrow(
      /^--etcd-certfile: ".*client\.key" is not a PEM certificate/,
    );
    expect(() => etcdTLSFromFlags({ 'etcd-certfile': files.cert, 'etcd-keyfile': files.cert }, storageURL())).toThrow(
      /^--etcd-keyfile: ".*client\.crt" is not a PEM key/,
    );
  });

  it(
    'a bad file path stops src/main.ts at start with the flag, the path and the usage',
    async () => {
      const missing = join(dir, 'missing.key');
      const exit = await main(['--storage', storageURL(), '--etcd-certfile', files.cert, '--etcd-keyfile', missing]).exited;
      expect(exit.code).toBe(2);
      expect(exit.stderr).toContain(`--etcd-keyfile: cannot read ${JSON.stringify(missing)}: ENOENT`);
      expect(exit.stderr).toContain('Usage: npm start');
      expect(exit.stderr).not.toMatch(/\n\s+at /);
      expect(exit.stdout).not.toContain('serving');
    },
    STARTUP_MS,
  );

  it(
    "a CA that did not sign etcd's certificate stops src/main.ts at start with the TLS error, not a hang",
    async () => {
      const storage = storageURL();
      const args = ['--data-dir', join(dir, `data-${Date.now()}`), '--storage', storage, '--etcd-certfile', files.cert];
      const exit = await main([...args, '--etcd-keyfile', files.key, '--etcd-cafile', files.otherCA]).exited;
      expect(exit.code).toBe(1);
      expect(exit.stderr).toContain(`kapi example control plane failed to start: etcd ${storage}: server unreachable`);
      expect(exit.stderr).toContain(
        `TLS handshake with etcd at https://127.0.0.1:${etcd.port} failed (unable to verify the first certificate)`,
      );
      expect(exit.stdout).not.toContain('serving');
    },
    STARTUP_MS,
  );

  it(
    'src/main.ts serves kubectl from an etcd that requires TLS client certificates',
    async () => {
      const dataDir = join(dir, `data-${Date.now()}`);
      const storage = storageURL();
      const plane = main([
        '--data-dir',
        dataDir,
        '--storage',
        storage,
        '--etcd-cafile',
        files.ca,
        '--etcd-certfile',
        files.cert,
        '--etcd-keyfile',
        files.key,
      ]);
      await plane.waitForStdout(/serving https:\/\/\S+ \(storage: etcds:/);
      const kubeconfig = join(dataDir, 'kubeconfig');
      const widget = 'apiVersion: example.kapi.dev/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  color: red\n  replicas: 3\n';
      expect(await kubectl(kubeconfig, ['create', '-f', '-'], widget)).toBe('widget.example.kapi.dev/w1 created\n');
      expect(await kubectl(kubeconfig, ['get', 'widget', 'w1', '-o', 'jsonpath={.spec.color}/{.spec.replicas}'])).toBe('red/3');
      const exit = await plane.stop();
      expect(exit.code).toBe(0);
    },
    2 * STARTUP_MS,
  );
});

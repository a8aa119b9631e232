import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary, startEtcd, startRedis } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Exit,
  killTestProcesses,
  kubectl as kubectlIn,
  startMain,
  startProcess,
  type TestProcess,
} from './test-support/test-process.ts';

// Several kapi processes on one etcd: separate `node main.ts` processes sharing a data directory, and --workers.

const T = 90_000;
/** Short leader election timings, so a takeover takes about two seconds rather than kube's fifteen. */
const FAST_ELECTION = [
  '--leader-elect',
  '--leader-elect-lease-duration',
  '2s',
  '--leader-elect-renew-deadline',
  '1s',
  '--leader-elect-retry-period',
  '100ms',
];

const tempDirs: string[] = [];
let etcd: { port: number; stop(): Promise<void> };
let redis: { url: string; stop(): Promise<void> };
let prefix = 0;

beforeAll(async () => {
  requireBinary('kubectl', 'kubectl');
  [etcd, redis] = await Promise.all([startEtcd(), startRedis()]);
}, 30_000);
// Whatever a test left running is killed by PID.
afterEach(killTestProcesses);
afterAll(async () => {
  await Promise.all([etcd?.stop(), redis?.stop()]);
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

const main = (args: string[]) => startMain(['--port', '0', ...args]);
/** How a process ended, without its output. */
const status = (e: Exit) => ({ code: e.code, signal: e.signal });

interface Plane extends TestProcess {
  url: string;
  /** Its leader election identity (the Lease's holderIdentity while it leads). */
  identity: string;
}

/** Waits for `count` "serving" lines (one per process or worker). */
async function serving(proc: TestProcess, count = 1): Promise<Plane> {
  const re =
    /kapi example control plane serving (https:\/\/\S+) .*\n(?:.*\n){2}\s+leader election: kube-system\/kube-controller-manager as (\S+)\n/;
  const matches = await proc.waitForStdout(re, { count });
  expect(matches).toHaveLength(count);
  const [m] = matches;
  return Object.assign(proc, { url: m?.[1] as string, identity: m?.[2] as string });
}

/** kubectl through one process's URL. */
const kubectl = (kubeconfig: string, server: string, args: string[]) => kubectlIn(kubeconfig, ['--server', server, ...args]);

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kapi-scale-'));
  tempDirs.push(dir);
  return dir;
}

const storage = () => `etcd://127.0.0.1:${etcd.port}/scale-${prefix++}`;
/** Each --storage on a keyspace of its own: etcd under a prefix, Redis in a database of its own. */
const backends: Record<string, () => string> = {
  etcd: storage,
  redis: () => `${redis.url}/${++prefix % 16}`,
};
const holder = (kubeconfig: string, server: string) =>
  kubectl(kubeconfig, server, ['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}']);

describe.each(['etcd', 'redis'])('several processes on one %s', (backend) => {
  it(
    'share the data directory; a write through one is read and watched through the other; one runs the controllers, the other takes over when it is killed',
    async () => {
      const dir = await dataDir();
      const flags = ['--storage', (backends[backend] as () => string)(), '--data-dir', dir, ...FAST_ELECTION];
      // Started at once: the first makes the token, CAs and certificates, the other waits and reuses them.
      const [a, b] = await Promise.all([serving(main(flags)), serving(main(flags))]);
      const kubeconfig = join(dir, 'kubeconfig');
      const watch = startProcess('kubectl', [
        '--kubeconfig',
        kubeconfig,
        '--server',
        b.url,
        'get',
        'configmaps',
        '--watch',
        '--no-headers',
      ]);
      await kubectl(kubeconfig, a.url, ['create', 'configmap', 'through-a', '--from-literal=k=v']);
      expect(await kubectl(kubeconfig, b.url, ['get', 'configmap', 'through-a', '-o', 'jsonpath={.data.k}'])).toBe('v');
      await expect.poll(() => watch.stdout(), { timeout: 30_000 }).toMatch(/^through-a\s/m);

      // One of them holds kube-controller-manager's Lease; its controllers run, the other's wait.
      await expect.poll(() => holder(kubeconfig, a.url), { timeout: 30_000 }).toMatch(new RegExp(`^(${a.identity}|${b.identity})$`));
      const leaderId = await holder(kubeconfig, b.url);
      const [leader, other] = leaderId === a.identity ? [a, b] : [b, a];

      // A namespace deletion begun under the leader, held by a finalizer, then the leader killed (no release).
      await kubectl(kubeconfig, other.url, ['create', 'namespace', 'held']);
      await kubectl(kubeconfig, other.url, ['create', 'configmap', 'c', '-n', 'held']);
      await kubectl(kubeconfig, other.url, [
        'patch',
        'configmap',
        'c',
        '-n',
        'held',
        '--type=merge',
        '-p',
        '{"metadata":{"finalizers":["example.com/hold"]}}',
      ]);
      await kubectl(kubeconfig, other.url, ['delete', 'namespace', 'held', '--wait=false']);
      await expect
        .poll(
          () => kubectl(kubeconfig, other.url, ['get', 'configmap', 'c', '-n', 'held', '-o', 'jsonpath={.metadata.deletionTimestamp}']),
          {
            timeout: 30_000,
          },
        )
        .not.toBe('');
      await leader.kill();
      // The other takes the Lease once it has seen it unrenewed for its duration, and finishes the deletion.
      await expect.poll(() => holder(kubeconfig, other.url), { timeout: 30_000, interval: 200 }).toBe(other.identity);
      expect(
        Number(
          await kubectl(kubeconfig, other.url, [
            'get',
            'lease',
            '-n',
            'kube-system',
            'kube-controller-manager',
            '-o',
            'jsonpath={.spec.leaseTransitions}',
          ]),
        ),
      ).toBeGreaterThanOrEqual(1);
      await kubectl(kubeconfig, other.url, [
        'patch',
        'configmap',
        'c',
        '-n',
        'held',
        '--type=merge',
        '-p',
        '{"metadata":{"finalizers":null}}',
      ]);
      await expect
        .poll(() => kubectl(kubeconfig, other.url, ['get', 'namespaces', '-o', 'jsonpath={.items[*].metadata.name}']), { timeout: 30_000 })
        .not.toMatch(/\bheld\b/);
      // The quota controller runs in the new leader too: status.used is kept.
      await kubectl(kubeconfig, other.url, ['create', 'quota', 'q', '--hard=count/configmaps=10']);
      await expect
        .poll(() => kubectl(kubeconfig, other.url, ['get', 'quota', 'q', '-o', 'jsonpath={.status.used.count/configmaps}']), {
          timeout: 30_000,
        })
        .toMatch(/^\d+$/);
      expect(status(await other.stop())).toEqual({ code: 0, signal: null });
      expect(other.stderr()).toBe('');
    },
    T,
  );
});

describe('--workers', () => {
  it('refuses the memory backend with N > 1', async () => {
    const p = main(['--workers', '2', '--data-dir', await dataDir()]);
    expect(status(await p.exited)).toEqual({ code: 2, signal: null });
    expect(p.stderr()).toContain('the memory backend is single-process; use etcd or Redis to run several workers');
    expect(p.stdout()).not.toContain('serving');
  });

  it(
    'forks N workers sharing one TLS port, serves kubectl, restarts a worker that dies, and stops them all on SIGTERM',
    async () => {
      const dir = await dataDir();
      const primary = main(['--workers', '2', '--storage', storage(), '--data-dir', dir, ...FAST_ELECTION.slice(1)]);
      const plane = await serving(primary, 2);
      const urls = [...primary.stdout().matchAll(/serving (https:\/\/\S+)/g)].map((m) => m[1]);
      expect(new Set(urls).size).toBe(1); // one port
      const pids = [...primary.stdout().matchAll(/\(worker (\d+)\)/g)].map((m) => Number(m[1]));
      expect(new Set(pids).size).toBe(2);
      const kubeconfig = join(dir, 'kubeconfig');
      for (let i = 0; i < 4; i++) await kubectl(kubeconfig, plane.url, ['create', 'configmap', `cm-${i}`]);
      expect(await kubectl(kubeconfig, plane.url, ['get', 'configmaps', '-o', 'name'])).toContain('configmap/cm-3');
      // A worker killed is replaced; the port keeps serving meanwhile.
      process.kill(pids[0] as number, 'SIGKILL');
      await expect.poll(() => primary.stdout().match(/serving https/g)?.length, { timeout: 60_000 }).toBe(3);
      expect(primary.stderr()).toContain(`worker ${pids[0]} died (SIGKILL); starting another`);
      expect(await kubectl(kubeconfig, plane.url, ['get', 'configmap', 'cm-0', '-o', 'name'])).toBe('configmap/cm-0\n');
      expect(status(await primary.stop())).toEqual({ code: 0, signal: null });
      expect(primary.stdout()).toContain('SIGTERM: stopping 2 workers');
      expect(primary.stderr()).toBe(`worker ${pids[0]} died (SIGKILL); starting another\n`);
    },
    T,
  );
});

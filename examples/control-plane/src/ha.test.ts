import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EtcdCluster, type EtcdMember, type RedisServer, startEtcdCluster, startRedis } from '@kapi/test-servers';
import { afterAll, describe, expect, it } from 'vitest';
import { HAClient } from './test-support/ha/ha-client.ts';
import { describeResult, runScenario, type ScenarioResult } from './test-support/ha/ha-scenario.ts';
import { type KapiProcess, startKapiProcesses } from './test-support/ha/kapi-processes.ts';
import { ResumingWatcher } from './test-support/ha/resuming-watcher.ts';

// High availability on loopback: several `npm start` processes (src/main.ts) on one backend, load through all of
// them, servers killed under it. Acknowledged writes must all be there afterwards; every watcher (client-go's
// reflector: resume from the last resourceVersion, relist on 410) must see every acknowledged write once, in order.
// The load is modest (CI has 2 cores); the figures are printed, not asserted on time.

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kapi-ha-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function expectClean(r: ScenarioResult, watchers: number): void {
  expect(r.acked.length).toBeGreaterThan(50);
  expect(r.list).toMatchObject({ lost: 0, mismatched: 0 });
  expect(r.caughtUp).toBe(watchers);
  expect(r.cacheMismatches).toEqual([]);
  for (const w of r.watchers) expect(w, w.samples.join('\n')).toMatchObject({ gaps: 0, duplicates: 0, outOfOrder: 0, unknown: 0 });
}

describe('HA on a 3-member etcd cluster', () => {
  it('keeps every acknowledged write and every watch whole when the etcd leader and kapi processes are killed', async () => {
    const cluster: EtcdCluster = await startEtcdCluster({ members: 3 });
    cleanups.push(() => cluster.stop());
    // kube-apiserver's --etcd-servers: every member, failed over between.
    const storage = `etcd://${cluster.endpoints.map((e) => new URL(e).host).join(',')}/ha`;
    const kapi = await startKapiProcesses(storage, 3, join(await tempDir(), 'data'));
    cleanups.push(() => kapi.stop());
    let killedLeader: EtcdMember | undefined;
    const result = await runScenario({
      kapi,
      namespace: 'default',
      writers: 4,
      namesPerWriter: 10,
      pauseMs: 25,
      // Writes in flight when the leader dies wait for etcd's own request timeout (5 s + 2 × election timeout) before
      // failing, so the kapi processes are killed after that, on their own.
      loadMs: 13_500,
      catchUpMs: 15_000,
      faults: [
        {
          atMs: 1000,
          what: 'etcd leader SIGKILLed',
          run: async () => {
            killedLeader = await cluster.leader();
            await killedLeader.kill();
          },
        },
        { atMs: 4000, what: 'the killed etcd member restarted', run: async () => killedLeader?.start() },
        { atMs: 8500, what: 'kapi process 1 SIGKILLed', run: () => (kapi.processes[1] as KapiProcess).kill() },
        // A rolling restart: process 1 comes back (fresh watch caches) on its port, then process 0 dies, so process
        // 0's clients and watcher move to the restarted one and resume there from their last resourceVersion.
        { atMs: 9500, what: 'kapi process 1 restarted', run: async () => void (await kapi.restart(1)) },
        { atMs: 12_000, what: 'kapi process 0 SIGKILLed', run: () => (kapi.processes[0] as KapiProcess).kill() },
      ],
    });
    console.log(describeResult(`etcd (3 members, ${kapi.processes.length} kapi processes)`, result));
    expectClean(result, 3);
    // The killed processes' watchers went on from its last resourceVersion on another process.
    expect(result.watchers[1]?.resumes).toBeGreaterThanOrEqual(1);
    expect(result.watchers[0]?.resumes).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

/** One command to a Redis server (RESP), its first reply line(s) as text. */
function redisCommand(server: RedisServer, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: server.host, port: server.port });
    let reply = '';
    sock.setTimeout(2000, () => sock.destroy(new Error('redis command timed out')));
    sock.once('error', reject);
    sock.once('connect', () => sock.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`));
    sock.on('data', (d) => {
      reply += d.toString();
      if (reply.endsWith('\r\n')) {
        sock.destroy();
        resolve(reply);
      }
    });
  });
}

describe('HA on Redis', () => {
  it('keeps acknowledged writes across a restart with fsync-always AOF, and a restart without its data gives watchers a 410 and a relist', async () => {
    // appendonly yes, appendfsync always: an acknowledged write is on disk before Redis answers it.
    const redis = await startRedis({ persistent: true });
    cleanups.push(() => redis.stop());
    const kapi = await startKapiProcesses(redis.url, 2, join(await tempDir(), 'data'));
    cleanups.push(() => kapi.stop());
    const result = await runScenario({
      kapi,
      namespace: 'default',
      writers: 4,
      namesPerWriter: 10,
      pauseMs: 15,
      loadMs: 5000,
      catchUpMs: 15_000,
      faults: [
        { atMs: 1500, what: 'redis-server SIGKILLed', run: () => redis.kill() },
        { atMs: 2500, what: 'redis-server restarted with its AOF', run: () => redis.restart() },
      ],
    });
    console.log(describeResult(`Redis with AOF (${kapi.processes.length} kapi processes)`, result));
    expectClean(result, 2);

    // The same server restarted without its data (its files removed while it is down): history is gone.
    const urls = kapi.processes.map((p) => p.url);
    const watchers = urls.map((_, i) => new ResumingWatcher(new HAClient(urls, kapi.token, kapi.ca, i), 'default'));
    await Promise.all(watchers.map((w) => w.start()));
    const dir = /\r\n\$\d+\r\n([^\r]+)\r\n$/.exec(await redisCommand(redis, 'CONFIG', 'GET', 'dir'))?.[1];
    expect(dir).toBeTruthy();
    await redis.kill();
    await rm(dir as string, { recursive: true, force: true });
    await mkdir(dir as string, { recursive: true });
    await redis.restart();
    // A write after the loss reaches every watcher (no watch ends silently). Namespace default went with the data:
    // it is created again first (kube's system-namespaces controller would, within a minute).
    const writer = new HAClient(urls, kapi.token, kapi.ca, 0);
    const ns = await writer.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    expect([201, 409]).toContain(ns.status);
    let created = await writer.request('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'after-loss' },
      data: { seq: '0' },
    });
    // The other process's namespace cache may not have the new namespace yet (kube's NamespaceLifecycle answers 404 too).
    for (let i = 0; created.status === 404 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      created = await writer.request('POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'after-loss' },
        data: { seq: '0' },
      });
    }
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rv = BigInt(created.body.metadata.resourceVersion);
    const caught = await Promise.all(watchers.map((w) => w.waitFor(rv, 15_000)));
    const listed = await writer.request('GET', '/api/v1/namespaces/default/configmaps');
    // No process's watch cache still serves what the data loss took.
    const cachedNames = await Promise.all(
      kapi.processes.map(async (p) => {
        const c = new HAClient([p.url], kapi.token, kapi.ca);
        const res = await c.request('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
        c.close();
        return res.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
      }),
    );
    writer.close();
    await Promise.all(watchers.map((w) => w.stop()));
    for (const w of watchers) w.client.close();
    // The objects there were before the loss: those whose last acknowledged write was not a delete.
    const last = new Map<string, boolean>();
    for (const w of [...result.acked].sort((a, b) => a.seq - b.seq)) last.set(w.name, w.rv !== undefined);
    const existedBefore = [...last.values()].filter(Boolean).length;
    const figures = watchers.map((w) => ({
      expired: w.expired,
      relists: w.relists.length,
      sawNewWrite: w.events.some((e) => e.name === 'after-loss' && e.rv === rv) || w.relists.some((r) => r.items.get('after-loss') === rv),
      errors: [...w.errors].map(([k, v]) => `${k}×${v}`).join(' '),
    }));
    console.log(
      `HA Redis restarted without its data: ${listed.body.items.length} ConfigMap(s) left of ${existedBefore} before (lost with the data, as expected); ` +
        `per watcher: ${figures.map((f) => `410s ${f.expired}, relists ${f.relists}, saw the next write ${f.sawNewWrite}${f.errors ? `, errors ${f.errors}` : ''}`).join('; ')}`,
    );
    expect(caught).toEqual(watchers.map(() => true));
    expect(listed.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['after-loss']);
    expect(cachedNames).toEqual(kapi.processes.map(() => ['after-loss']));
    for (const f of figures) {
      expect(f.expired).toBeGreaterThanOrEqual(1);
      expect(f.relists).toBeGreaterThanOrEqual(1);
      expect(f.sawNewWrite).toBe(true);
    }
  }, 60_000);
});

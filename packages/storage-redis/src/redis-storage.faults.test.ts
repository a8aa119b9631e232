import { randomBytes } from 'node:crypto';
import { type KubeObject, type Status, toStatusError, type WatchEvent } from '@kapi/apimachinery';
import { isStorageError } from '@kapi/storage';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMPACT, CREATE } from './lua-scripts.ts';
import { RedisStorage, type RedisStorageOptions } from './redis-storage.ts';
import { brief, collect, named, sleep, whenReachable } from './test-support/watch-reading.ts';
import { DATA_LOST_MESSAGE } from './watch-hub.ts';

let redis: RedisServer;
let admin: Redis;
const open: RedisStorage[] = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  admin.on('error', () => {});
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});

function storage(opts: RedisStorageOptions = {}): RedisStorage {
  const s = new RedisStorage({
    url: redis.url,
    prefix: `faults-${randomBytes(6).toString('hex')}`,
    watchPollBlockMs: 200,
    requestTimeoutMs: 3000,
    compactionIntervalMs: 0,
    ...opts,
  });
  open.push(s);
  return s;
}

const widget = (name: string, size = 1): KubeObject => ({
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns' },
  spec: { size },
});
const key = (name: string) => `/registry/widgets/ns/${name}`;
/** Creates `name`; a create whose reply was lost may have been applied, which KeyExists then tells. */
async function ensureCreated(s: RedisStorage, name: string): Promise<void> {
  await whenReachable(async () => {
    try {
      await s.create(key(name), widget(name));
    } catch (err) {
      if (!isStorageError(err, 'KeyExists')) throw err;
    }
  });
}

/** Kills the watch reader's connection once it is reading the log (it connects lazily, after the first watch). */
async function killReader(): Promise<void> {
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const list = (await admin.client('LIST')) as string;
    const line = list.split('\n').find((l) => l.includes(' name=kapi-watch ') && l.includes(' cmd=xread '));
    const id = line && /id=(\d+)/.exec(line)?.[1];
    if (id && Number(await admin.client('KILL', 'ID', id)) === 1) return;
    await sleep(10);
  }
  throw new Error('no watch reader connection to kill');
}

function expectExactlyOnce(events: WatchEvent[], names: string[]): void {
  const changes = events.filter((e) => e.type !== 'BOOKMARK');
  expect(changes.map((e) => `${e.type} ${e.type === 'ERROR' ? '' : e.object.metadata.name}`)).toEqual(names.map((n) => `ADDED ${n}`));
  const revs = changes.map((e) => Number((e.object as KubeObject).metadata.resourceVersion));
  for (let i = 1; i < revs.length; i++) expect(revs[i]).toBeGreaterThan(revs[i - 1] as number);
}

describe('RedisStorage under faults', () => {
  it('a dropped watch connection resumes from its last revision: nothing lost, nothing twice', async () => {
    const s = storage();
    const from = await s.currentResourceVersion();
    const watch = s.watch('/registry/widgets', { resourceVersion: from });
    const names: string[] = [];
    const events: WatchEvent[] = [];
    for (let round = 0; round < 3; round++) {
      // Written while the reader is reconnecting (after the first round): it must pick them up from its position.
      for (let i = 0; i < 5; i++) {
        const name = `w${round}-${i}`;
        names.push(name);
        await s.create(key(name), widget(name));
      }
      events.push(...(await collect(watch, named(`w${round}-4`))).events);
      await killReader();
    }
    names.push('last');
    await s.create(key('last'), widget('last'));
    events.push(...(await collect(watch, named('last'))).events);
    expectExactlyOnce(events, names);
    watch.stop();
  });

  it('every connection killed (CLIENT KILL TYPE normal): writes fail fast then work again, the watch misses nothing', async () => {
    const s = storage();
    const from = await s.currentResourceVersion();
    const watch = s.watch('/registry/widgets', { resourceVersion: from });
    const names: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) {
        const name = `k${round}-${i}`;
        names.push(name);
        await ensureCreated(s, name);
      }
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    }
    names.push('last');
    await ensureCreated(s, 'last');
    const { events } = await collect(watch, named('last'));
    expectExactlyOnce(events, names);
    watch.stop();
  });

  it("a log compacted past the reader's position ends its watches with 410 instead of skipping events", async () => {
    const s = storage();
    const watch = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion() });
    const b = await s.create(key('b'), widget('b'));
    expect((await collect(watch, named('b'))).events.map(brief)).toHaveLength(1);
    // Three writes and a compaction at the last one, atomically: the reader (blocked on XREAD) next finds only the
    // last entry, two revisions past its position.
    const { prefix } = s.layout;
    const epoch = (await admin.get(s.layout.epoch)) as string;
    const tx = admin.multi();
    for (const n of ['c', 'd', 'e']) tx.eval(CREATE.lua, 0, prefix, epoch, key(n), JSON.stringify(widget(n)), 0);
    tx.eval(COMPACT.lua, 0, prefix, epoch, Number(b.metadata.resourceVersion) + 3, 1000);
    expect((await tx.exec())?.every(([err]) => err === null)).toBe(true);
    const { events, ended } = await collect(watch, () => false);
    expect(ended).toBe(true);
    expect(events.map(brief)).toEqual(['ERROR 410']);
  });

  it('Redis restarted without its data: the watch ends with 410, nothing twice, revisions never go back', async () => {
    const s = storage();
    const writer = storage({ prefix: s.layout.prefix });
    const from = await s.currentResourceVersion();
    const watch = s.watch('/registry/widgets', { resourceVersion: from });
    await s.create(key('a'), widget('a'));
    const b = await writer.create(key('b'), widget('b'));
    const before = await collect(watch, named('b'));
    expect(before.events.map(brief)).toEqual([
      `ADDED a ${Number(b.metadata.resourceVersion) - 1}`,
      `ADDED b ${b.metadata.resourceVersion}`,
    ]);
    const seen = Number(b.metadata.resourceVersion);

    await redis.restart();
    // The other instance writes first after the restart: it finds the data gone and starts a new epoch.
    const c = await whenReachable(() => writer.create(key('c'), widget('c')));
    const { events, ended } = await collect(watch, () => false, 10_000);
    expect(ended).toBe(true);
    expect(events.map(brief)).toEqual(['ERROR 410']);
    const status = events[0]?.object as Status;
    expect(status.reason).toBe('Expired');
    expect(status.message).toBe(DATA_LOST_MESSAGE);

    // The data is gone, and no revision handed out before is handed out again.
    expect(Number(c.metadata.resourceVersion)).toBeGreaterThan(seen);
    expect(await whenReachable(() => s.get(key('a'), { ignoreNotFound: true }))).toBeNull();
    expect(Number(await s.currentResourceVersion())).toBeGreaterThanOrEqual(Number(c.metadata.resourceVersion));
    const old = await s
      .list('/registry/widgets', { resourceVersion: String(seen), resourceVersionMatch: 'Exact' })
      .catch((e: unknown) => e);
    expect(toStatusError(old).code).toBe(410);
    const oldWatch = await collect(s.watch('/registry/widgets', { resourceVersion: String(seen) }), () => false);
    expect(oldWatch.events.map(brief)).toEqual(['ERROR 410']);

    // A new watch (what a client does after the 410: list, then watch from the list) works.
    const listed = await s.list('/registry/widgets');
    expect(listed.items.map((o) => o.metadata.name)).toEqual(['c']);
    const again = s.watch('/registry/widgets', { resourceVersion: listed.metadata.resourceVersion });
    const d = await s.create(key('d'), widget('d'));
    const after = await collect(again, named('d'));
    expect(after.events.map(brief)).toEqual([`ADDED d ${d.metadata.resourceVersion}`]);
    again.stop();
  });

  it('a restart that lost only the last writes (same epoch, revision gone back) is caught too', async () => {
    const s = storage();
    const writer = storage({ prefix: s.layout.prefix });
    const watch = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion() });
    for (const n of ['a', 'b', 'c']) await s.create(key(n), widget(n));
    const seen = Number(await s.currentResourceVersion());
    expect((await collect(watch, named('c'))).events).toHaveLength(3);
    // What an AOF fsynced a second late gives back: the store as it was two writes ago, same epoch.
    const l = s.layout;
    await admin.set(l.rev, seen - 2);
    await admin.xtrim(l.log, 'MAXLEN', seen - 2);
    await admin.del(l.object(key('b')), l.object(key('c')));
    await admin.zrem(l.live, key('b'), key('c'));
    await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    const { events, ended } = await collect(watch, () => false);
    expect(ended).toBe(true);
    expect(events.map(brief)).toEqual(['ERROR 410']);
    expect((events[0]?.object as Status | undefined)?.message).toBe(DATA_LOST_MESSAGE);
    // Neither instance hands out a revision again (the writer had seen less than the watcher).
    const d = await whenReachable(() => writer.create(key('d'), widget('d')));
    expect(Number(d.metadata.resourceVersion)).toBeGreaterThan(seen);
  });

  it('50 concurrent guaranteedUpdate increments from two instances lose no update', async () => {
    const a = storage();
    const b = storage({ prefix: a.layout.prefix });
    await a.create(key('counter'), widget('counter', 0));
    const increment = (s: RedisStorage) =>
      s.guaranteedUpdate(key('counter'), async (cur) => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const c = cur as KubeObject & { spec: { size: number } };
        return { ...c, spec: { size: c.spec.size + 1 } };
      });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => increment(i % 2 === 0 ? a : b)));
    const final = (await a.get(key('counter'))) as KubeObject & { spec: { size: number } };
    expect(final.spec.size).toBe(50);
    const sizes = results.map((r) => (r.spec as { size: number }).size).sort((x, y) => x - y);
    expect(sizes).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.metadata.resourceVersion)).size).toBe(50);
  });

  it('an object over maxValueBytes is RequestTooLarge (413) and nothing is written', async () => {
    const s = storage({ maxValueBytes: 1024 });
    const before = await s.currentResourceVersion();
    const big = { ...widget('big'), spec: { blob: 'x'.repeat(2000) } };
    const e = await s.create(key('big'), big).catch((err: unknown) => err);
    expect(isStorageError(e, 'RequestTooLarge')).toBe(true);
    expect(toStatusError(e).code).toBe(413);
    expect(await s.get(key('big'), { ignoreNotFound: true })).toBeNull();
    expect(await s.currentResourceVersion()).toBe(before);

    const small = await s.create(key('small'), widget('small'));
    const u = await s
      .guaranteedUpdate(key('small'), (cur) => ({ ...(cur as KubeObject), spec: { blob: 'é'.repeat(600) } }))
      .catch((err: unknown) => err);
    expect(isStorageError(u, 'RequestTooLarge')).toBe(true);
    expect(await s.get(key('small'))).toEqual(small);
    expect(await s.currentResourceVersion()).toBe(small.metadata.resourceVersion);

    // The default limit is etcd's 1.5 MiB.
    const d = storage();
    const huge = { ...widget('huge'), spec: { blob: 'x'.repeat(1.5 * 1024 * 1024) } };
    expect(isStorageError(await d.create(key('huge'), huge).catch((err: unknown) => err), 'RequestTooLarge')).toBe(true);
    expect(await d.count('/registry/widgets')).toBe(0);
  });

  it('a hung Redis (SIGSTOP): calls fail with Unreachable after requestTimeoutMs and work again once it resumes', async () => {
    const owned = storage({ requestTimeoutMs: 400 });
    const client = new Redis(redis.url);
    client.on('error', () => {});
    const given = storage({ client, requestTimeoutMs: 400 });
    await owned.create(key('a'), widget('a'));
    await given.create(key('b'), widget('b'));
    const pid = redis.pid as number;
    process.kill(pid, 'SIGSTOP');
    try {
      for (const [name, s] of [
        ['owned connection', owned],
        ["caller's client", given],
      ] as const) {
        const t0 = performance.now();
        const e = await s.get(key('a')).catch((err: unknown) => err);
        const ms = performance.now() - t0;
        expect(isStorageError(e, 'Unreachable'), `${name}: ${String(e)}`).toBe(true);
        expect((e as Error).message, name).not.toMatch(/maxRetriesPerRequest/);
        expect(ms, name).toBeLessThan(1500);
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect((await whenReachable(() => owned.get(key('a'))))?.metadata.name).toBe('a');
    expect((await whenReachable(() => given.get(key('b'))))?.metadata.name).toBe('b');
    await given.close();
    client.disconnect();
  });

  // Last: it leaves the server down until its end.
  it('Redis down: operations fail fast with Unreachable and watches end with an error instead of hanging', async () => {
    const s = storage({ requestTimeoutMs: 5000, watchReconnectTimeoutMs: 1000 });
    const a = await s.create(key('a'), widget('a'));
    const live = s.watch('/registry/widgets', { resourceVersion: a.metadata.resourceVersion });
    const never = storage({ requestTimeoutMs: 5000 });
    await redis.kill();
    try {
      const ops: [string, () => Promise<unknown>][] = [
        ['get', () => s.get(key('a'))],
        ['create', () => s.create(key('b'), widget('b'))],
        ['list', () => s.list('/registry/widgets')],
        ['guaranteedUpdate', () => s.guaranteedUpdate(key('a'), (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }))],
        ['delete', () => s.delete(key('a'))],
        ['count', () => s.count('/registry/widgets')],
        ['currentResourceVersion', () => s.currentResourceVersion()],
        ['compact', () => s.compact(1)],
        ['first use of a storage that never connected', () => never.get(key('a'))],
      ];
      for (const [name, op] of ops) {
        const t0 = performance.now();
        const e = await op().then(
          () => undefined,
          (err: unknown) => err,
        );
        const ms = performance.now() - t0;
        expect(isStorageError(e, 'Unreachable'), `${name}: ${String(e)}`).toBe(true);
        expect(toStatusError(e).code, name).toBe(500);
        expect(ms, `${name} took ${ms} ms`).toBeLessThan(500);
      }
      const t0 = performance.now();
      const fresh = await collect(s.watch('/registry/widgets', { resourceVersion: a.metadata.resourceVersion }), () => false, 2000);
      expect(fresh.events.map(brief)).toEqual(['ERROR 500']);
      expect(performance.now() - t0).toBeLessThan(500);
      // kube's ServerTimeout, with the reason in its message: a watch client sees nothing else.
      const down = /^server unreachable: (no connection to Redis: \S|lost the connection to Redis for 1000 ms)/;
      const freshStatus = fresh.events[0]?.object as Status | undefined;
      expect(freshStatus?.reason).toBe('ServerTimeout');
      expect(freshStatus?.message).toMatch(down);
      // A running watch ends once the reader has been cut off for watchReconnectTimeoutMs.
      const ended = await collect(live, () => false, 5000);
      expect(ended.events.map(brief)).toEqual(['ERROR 500']);
      expect((ended.events[0]?.object as Status | undefined)?.message).toMatch(down);
    } finally {
      await redis.restart();
    }
  });
});

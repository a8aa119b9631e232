import { randomBytes } from 'node:crypto';
import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage, type RedisStorageOptions } from './redis-storage.ts';

let redis: RedisServer;
let raw: Redis;
const open: RedisStorage[] = [];

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(async () => {
  raw?.disconnect();
  await redis?.stop();
});

function storage(opts: RedisStorageOptions = {}): RedisStorage {
  const s = new RedisStorage({ url: redis.url, prefix: `it-${randomBytes(6).toString('hex')}`, compactionIntervalMs: 0, ...opts });
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
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function take(it: AsyncIterator<WatchEvent>, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    if (r.value.type !== 'ERROR') out.push(`${r.value.type} ${r.value.object.metadata.name} ${r.value.object.metadata.resourceVersion}`);
  }
  return out;
}

describe('RedisStorage on Redis', () => {
  it('keeps the documented layout: versions without resourceVersion, key indexes, one log entry per revision', async () => {
    const s = storage();
    const l = s.layout;
    const a1 = await s.create(key('a'), widget('a'));
    const a2 = await s.guaranteedUpdate(key('a'), (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    await s.create(key('b'), widget('b'));
    await s.delete(key('b'));
    expect(await raw.get(l.rev)).toBe('4');
    expect(await raw.get(l.epoch)).toMatch(/^[0-9a-f-]{36}$/);
    const { resourceVersion: _, ...meta } = a2.metadata;
    expect(await raw.zrange(l.object(key('a')), '0', '-1', 'WITHSCORES')).toEqual([
      `1:${JSON.stringify({ ...a1, metadata: meta })}`,
      '1',
      `2:${JSON.stringify({ ...a2, metadata: meta })}`,
      '2',
    ]);
    expect(await raw.zrange(l.object(key('b')), '-1', '-1')).toEqual(['4:']);
    expect(await raw.zrange(l.live, '0', '-1')).toEqual([key('a')]);
    expect(await raw.zrange(l.all, '0', '-1')).toEqual([key('a'), key('b')]);
    const log = await raw.xrange(l.log, '-', '+');
    expect(log.map(([id, fields]) => [id, fields.filter((_, i) => i % 2 === 0).join(',')])).toEqual([
      ['1-0', 'k,v'],
      ['2-0', 'k,v,p'],
      ['3-0', 'k,v'],
      ['4-0', 'k,p'],
    ]);
  });

  it('compaction drops superseded versions, tombstones and old log entries, keeping the compaction point readable', async () => {
    const s = storage();
    const l = s.layout;
    await s.create(key('a'), widget('a'));
    await s.create(key('b'), widget('b'));
    const a2 = await s.guaranteedUpdate(key('a'), (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    await s.delete(key('b'));
    const c = await s.create(key('c'), widget('c'));
    await s.compact(Number(c.metadata.resourceVersion));
    expect(await raw.zcard(l.object(key('a')))).toBe(1);
    expect(await raw.exists(l.object(key('b')))).toBe(0);
    expect(await raw.zrange(l.all, '0', '-1')).toEqual([key('a'), key('c')]);
    expect((await raw.xrange(l.log, '-', '+')).map(([id]) => id)).toEqual(['5-0']);
    expect(await raw.get(l.compacted)).toBe('5');
    const at = await s.list('/registry/widgets', { resourceVersion: '5', resourceVersionMatch: 'Exact' });
    expect(at.items).toEqual([a2, c]);
    await expect(s.compact(99)).rejects.toThrow(/Too large resource version: 99/);
  });

  it('compacts by itself every interval, to the revision seen one interval before', async () => {
    const s = storage({ compactionIntervalMs: 150 });
    const a = await s.create(key('a'), widget('a'));
    await s.guaranteedUpdate(key('a'), (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    const deadline = Date.now() + 3000;
    while (Number((await raw.get(s.layout.compacted)) ?? 0) < 2 && Date.now() < deadline) await sleep(25);
    expect(await raw.get(s.layout.compacted)).toBe('2');
    const e = await s
      .list('/registry/widgets', { resourceVersion: a.metadata.resourceVersion, resourceVersionMatch: 'Exact' })
      .catch((err: unknown) => err);
    expect((e as Error).message).toBe('The resourceVersion for the provided list is too old.');
  });

  it("runs on a caller's client (even one with a keyPrefix) and leaves it open on close", async () => {
    const client = new Redis(redis.url, { keyPrefix: 'ignored:' });
    const s = storage({ client });
    const a = await s.create(key('a'), widget('a'));
    const b = await s.create(key('b'), widget('b'));
    // A watch from the first write replays the log (b), then follows it live (c).
    const it = s.watch('/registry/widgets', { resourceVersion: a.metadata.resourceVersion })[Symbol.asyncIterator]();
    const c = await s.create(key('c'), widget('c'));
    expect(await take(it, 2)).toEqual([`ADDED b ${b.metadata.resourceVersion}`, `ADDED c ${c.metadata.resourceVersion}`]);
    expect((await s.list('/registry/widgets')).items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(await raw.exists(s.layout.rev)).toBe(1);
    await s.close();
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('instances on one store share it: a watch on one sees the writes of another, in revision order', async () => {
    const a = storage();
    const b = storage({ prefix: a.layout.prefix });
    const from = await a.currentResourceVersion();
    const it = a.watch('/registry/widgets', { resourceVersion: from })[Symbol.asyncIterator]();
    const x = await b.create(key('x'), widget('x'));
    const y = await a.create(key('y'), widget('y'));
    const x2 = await b.guaranteedUpdate(key('x'), (cur) => ({ ...(cur as KubeObject), spec: { size: 3 } }));
    expect(await take(it, 3)).toEqual([
      `ADDED x ${x.metadata.resourceVersion}`,
      `ADDED y ${y.metadata.resourceVersion}`,
      `MODIFIED x ${x2.metadata.resourceVersion}`,
    ]);
    expect(await b.get(key('y'))).toEqual(y);
  });

  it("a write answers a frozen object, which its own watch event carries as is; another instance's event is decoded", async () => {
    const a = storage();
    const b = storage({ prefix: a.layout.prefix });
    const from = await a.currentResourceVersion();
    const mine = a.watch('/registry/widgets', { resourceVersion: from })[Symbol.asyncIterator]();
    const x = await a.create(key('x'), widget('x'));
    const x2 = await a.guaranteedUpdate(key('x'), (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    const y = await b.create(key('y'), widget('y'));
    expect(Object.isFrozen(x) && Object.isFrozen(x.spec) && Object.isFrozen(x2.metadata)).toBe(true);
    const events: KubeObject[] = [];
    while (events.length < 3) {
      const r = await mine.next();
      if (r.done) break;
      if (r.value.type !== 'ERROR') events.push(r.value.object);
    }
    expect(events[0]).toBe(x);
    expect(events[1]).toBe(x2);
    // Written through the other instance: the same content, decoded from the log.
    expect(events[2]).not.toBe(y);
    expect(events[2]).toEqual(y);
    expect(await a.get(key('x'))).toEqual(x2);
  });

  it('a TTL belongs to the write that carried it: an update keeps the object alive', async () => {
    const s = storage({ ttlSweepIntervalMs: 50 });
    await s.create(key('a'), widget('a'), { ttlSeconds: 0.2 });
    await s.create(key('b'), widget('b'), { ttlSeconds: 0.2 });
    const a2 = await s.guaranteedUpdate(key('a'), (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    await sleep(500);
    expect(await s.get(key('a'))).toEqual(a2);
    expect(await s.get(key('b'), { ignoreNotFound: true })).toBeNull();
    expect(await raw.zcard(s.layout.ttl)).toBe(0);
  });

  it('an error reply from Redis (a corrupted layout key) is Internal, not a retryable Unreachable', async () => {
    const s = storage();
    await s.create(key('a'), widget('a'));
    const l = s.layout;
    await raw.del(l.object(key('a')));
    await raw.set(l.object(key('a')), 'not a sorted set');
    const err = await s.get(key('a')).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StorageError', code: 'Internal' });
    expect((err as { toStatusError(): { code: number } }).toStatusError().code).toBe(500);
  });
  it('requestWatchProgress: a BOOKMARK at or above the revision asked at, after the events, with timed BOOKMARKs off', async () => {
    const s = storage({ progressNotifyIntervalMs: 3_600_000 });
    await s.create('/registry/gadgets/ns/base', widget('base'));
    const start = await s.currentResourceVersion();
    const w = s.watch('/registry/widgets/ns', { resourceVersion: start, progressNotify: true })[Symbol.asyncIterator]();
    const quiet = s.watch('/registry/widgets/ns', { resourceVersion: start, allowWatchBookmarks: true })[Symbol.asyncIterator]();
    const a = await s.create(key('a'), widget('a'));
    await s.create('/registry/gadgets/ns/x', widget('x'));
    const asked = Number(await s.currentResourceVersion());
    await s.requestWatchProgress();
    const [added, bookmark] = await take(w, 2);
    expect(added).toBe(`ADDED a ${a.metadata.resourceVersion}`);
    expect(bookmark).toMatch(/^BOOKMARK /);
    expect(Number(bookmark?.split(' ')[2])).toBeGreaterThanOrEqual(asked);
    // A watch joining afterwards from an old revision is not owed one; the one without progressNotify never is.
    const late = s.watch('/registry/widgets/ns', { resourceVersion: start, progressNotify: true })[Symbol.asyncIterator]();
    const b = await s.create(key('b'), widget('b'));
    expect(await take(late, 2)).toEqual([`ADDED a ${a.metadata.resourceVersion}`, `ADDED b ${b.metadata.resourceVersion}`]);
    expect(await take(quiet, 2)).toEqual([`ADDED a ${a.metadata.resourceVersion}`, `ADDED b ${b.metadata.resourceVersion}`]);
  });

  it('requestWatchProgress: a watch still replaying the log when it is served gets its BOOKMARK on going live', async () => {
    const s = storage({ progressNotifyIntervalMs: 3_600_000 });
    await s.create('/registry/gadgets/ns/base', widget('base'));
    const start = await s.currentResourceVersion();
    const first = s.watch('/registry/widgets/ns', { resourceVersion: start })[Symbol.asyncIterator]();
    const objs: KubeObject[] = [];
    for (let i = 0; i < 5; i++) objs.push(await s.create(key(`o${i}`), widget(`o${i}`)));
    await take(first, 5);
    const asked = Number(await s.currentResourceVersion());
    // Asked right away: the request's revision read is answered before the new watch has read its log.
    const replaying = s.watch('/registry/widgets/ns', { resourceVersion: start, progressNotify: true })[Symbol.asyncIterator]();
    await s.requestWatchProgress();
    const got = await take(replaying, 6);
    expect(got.slice(0, 5)).toEqual(objs.map((o) => `ADDED ${o.metadata.name} ${o.metadata.resourceVersion}`));
    expect(got[5]).toMatch(/^BOOKMARK /);
    expect(Number(got[5]?.split(' ')[2])).toBeGreaterThanOrEqual(asked);
  });
});

import { randomBytes } from 'node:crypto';
import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { isStorageError } from '@kapi/storage';
import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EtcdClient } from './client/etcd-client.ts';
import { EtcdStorage, type EtcdStorageOptions } from './etcd-storage.ts';
import { answersProgressInOrder } from './progress-request-support.ts';

// What the shared conformance suite cannot see: the stored form, prefixes, leases, closing, bookmark pacing.
let etcd: EtcdServer;
let raw: EtcdClient;
const open: EtcdStorage[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
  raw = new EtcdClient({ endpoints: [etcd.endpoint], requestTimeoutMs: 5000 });
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(async () => {
  raw?.close();
  await etcd?.stop();
});

const newPrefix = () => `/kapi-unit-${randomBytes(6).toString('hex')}`;

function storage(options: Partial<EtcdStorageOptions> = {}): EtcdStorage {
  const s = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: newPrefix(), ...options });
  open.push(s);
  return s;
}

const widget = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name }, spec: { size: 1 } });

async function rawGet(key: string) {
  const res = await raw.range({ key: Buffer.from(key) });
  return res.kvs[0];
}

describe('EtcdStorage', () => {
  it('stores JSON without resourceVersion under prefix + key; the resourceVersion is the mod_revision', async () => {
    const prefix = newPrefix();
    const s = storage({ prefix: `${prefix}/` });
    const created = await s.create('/registry/widgets/a', widget('a'));
    const kv = await rawGet(`${prefix}/registry/widgets/a`);
    expect(kv).toBeDefined();
    expect(JSON.parse(kv?.value.toString() ?? '')).toEqual(widget('a'));
    expect(String(kv?.mod_revision)).toBe(created.metadata.resourceVersion);
  });

  it('stores with different prefixes do not see each other', async () => {
    const [a, b] = [storage(), storage()];
    await a.create('/registry/widgets/x', widget('x'));
    expect(await b.get('/registry/widgets/x', { ignoreNotFound: true })).toBeNull();
    expect(await b.count('/registry/widgets')).toBe(0);
    expect((await b.list('/registry/widgets')).items).toEqual([]);
    expect(await a.count('/registry/widgets')).toBe(1);
  });

  it('keys with a long TTL share a lease; an update without TTL detaches the key from it', async () => {
    const prefix = newPrefix();
    const s = storage({ prefix });
    await s.create('/registry/widgets/a', widget('a'), { ttlSeconds: 3600 });
    await s.create('/registry/widgets/b', widget('b'), { ttlSeconds: 3600 });
    await s.create('/registry/widgets/c', widget('c'), { ttlSeconds: 5 });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => rawGet(`${prefix}/registry/widgets/${n}`)));
    expect(a?.lease).toBeGreaterThan(0);
    expect(b?.lease).toBe(a?.lease);
    expect(c?.lease).toBeGreaterThan(0);
    expect(c?.lease).not.toBe(a?.lease);
    await s.guaranteedUpdate('/registry/widgets/a', (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } }));
    expect((await rawGet(`${prefix}/registry/widgets/a`))?.lease).toBe(0);
  });

  it('close() ends every watch and later calls fail with Unreachable', async () => {
    const s = storage();
    const w = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion() });
    const it = w[Symbol.asyncIterator]();
    const pending = it.next();
    await s.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    await s.close();
    for (const call of [() => s.get('/registry/widgets/a'), () => s.create('/registry/widgets/a', widget('a')), () => s.compact(1)]) {
      let err: unknown;
      try {
        await call();
      } catch (e) {
        err = e;
      }
      expect(isStorageError(err, 'Unreachable'), String(err)).toBe(true);
    }
    const late = s.watch('/registry/widgets');
    expect(await late[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
  });

  it('progress BOOKMARKs come no more often than progressIntervalMs, and only while the watcher is quiet', async () => {
    const s = storage({ progressIntervalMs: 300 });
    const w = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion(), progressNotify: true });
    const seen: [WatchEvent['type'], number][] = [];
    const t0 = Date.now();
    let bookmarks = 0;
    for await (const e of w) {
      seen.push([e.type, Date.now() - t0]);
      if (e.type === 'BOOKMARK' && ++bookmarks === 2) void s.create('/registry/widgets/a', widget('a'));
      if (bookmarks === 4) break;
    }
    expect(seen.map(([type]) => type)).toEqual(['BOOKMARK', 'BOOKMARK', 'ADDED', 'BOOKMARK', 'BOOKMARK']);
    // Each BOOKMARK follows the watch's start, or its previous event, by at least the interval.
    let last = 0;
    for (const [type, at] of seen) {
      if (type === 'BOOKMARK') expect(at - last).toBeGreaterThanOrEqual(290);
      last = at;
    }
    expect(last).toBeLessThan(3000);
  });

  it('requestWatchProgress: a BOOKMARK at or above the revision asked at, after the events, with timed BOOKMARKs off', async () => {
    // etcd here notifies progress every 100 ms; progressIntervalMs keeps every timed BOOKMARK back.
    const s = storage({ progressIntervalMs: 3_600_000 });
    const w = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion(), progressNotify: true });
    const quiet = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion(), allowWatchBookmarks: true });
    const a = await s.create('/registry/widgets/a', widget('a'));
    // The last write is outside the watched range: only etcd's in-order progress notification can pay.
    await s.create('/registry/gadgets/x', widget('x'));
    const asked = Number(await s.currentResourceVersion());
    const t0 = Date.now();
    await s.requestWatchProgress();
    const it = w[Symbol.asyncIterator]();
    const first = (await it.next()).value as WatchEvent;
    const second = (await it.next()).value as WatchEvent;
    expect([first.type, first.object.metadata.resourceVersion]).toEqual(['ADDED', a.metadata.resourceVersion]);
    expect(second.type).toBe('BOOKMARK');
    expect(Number(second.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(asked);
    // Two of etcd's 100 ms ticks at most (it skips one after sending events), not the hour of progressIntervalMs.
    expect(Date.now() - t0).toBeLessThan(2000);
    // The watch that did not ask for progressNotify gets its event and no BOOKMARK.
    const b = await s.create('/registry/widgets/b', widget('b'));
    const q = quiet[Symbol.asyncIterator]();
    const got = [(await q.next()).value, (await q.next()).value] as WatchEvent[];
    expect(got.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`)).toEqual([
      `ADDED ${a.metadata.resourceVersion}`,
      `ADDED ${b.metadata.resourceVersion}`,
    ]);
  });

  it('asks every member its version at start: progress requests are prompt only on etcd 3.4.31+ / 3.5.13+', async () => {
    const s = storage();
    expect(s.promptWatchProgress).toBe(false);
    const { version } = await raw.status();
    expect(version).toMatch(/^3\.\d+\.\d+/);
    expect(await s.checkPromptWatchProgress()).toBe(answersProgressInOrder(version));
    expect(s.promptWatchProgress).toBe(answersProgressInOrder(version));
  });

  it('a compaction below the current revision is fine twice; one above it is too large', async () => {
    const s = storage();
    const a = await s.create('/registry/widgets/a', widget('a'));
    const rev = Number(a.metadata.resourceVersion);
    await s.compact(rev);
    await s.compact(rev);
    let err: unknown;
    try {
      await s.compact(rev + 1000);
    } catch (e) {
      err = e;
    }
    expect(isStorageError(err, 'TooLargeResourceVersion'), String(err)).toBe(true);
  });

  it('many watchers share the stream and each gets its own events', async () => {
    const s = storage();
    const from = await s.currentResourceVersion();
    const watches = Array.from({ length: 50 }, (_, i) =>
      s.watch(`/registry/widgets/${i % 5}`, { resourceVersion: from })[Symbol.asyncIterator](),
    );
    for (let i = 0; i < 5; i++) await s.create(`/registry/widgets/${i}/w`, widget(`w${i}`));
    const first = await Promise.all(watches.map((it) => it.next()));
    expect(first.map((r) => ((r.value as WatchEvent).object as KubeObject).metadata.name)).toEqual(
      Array.from({ length: 50 }, (_, i) => `w${i % 5}`),
    );
    for (const it of watches) await it.return?.();
  });
});

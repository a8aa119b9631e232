import { randomBytes } from 'node:crypto';
import { type KubeObject, type Status, toStatusError } from '@kapi/apimachinery';
import { isStorageError } from '@kapi/storage';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisStorage } from './redis-storage.ts';
import { brief, collect, named, sleep, whenReachable } from './test-support/watch-reading.ts';
import { DATA_LOST_MESSAGE } from './watch-hub.ts';

// A real redis-server killed (SIGKILL, as a crash) and started again: with its data (an append-only file fsynced on
// every write) or without (no persistence).
let kept: RedisServer;
let lost: RedisServer;
const open: RedisStorage[] = [];

beforeAll(async () => {
  [kept, lost] = await Promise.all([startRedis({ persistent: true }), startRedis()]);
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(async () => {
  await Promise.all([kept?.stop(), lost?.stop()]);
});

function storage(server: RedisServer): RedisStorage {
  const s = new RedisStorage({
    url: server.url,
    prefix: `restart-${randomBytes(6).toString('hex')}`,
    watchPollBlockMs: 200,
    requestTimeoutMs: 3000,
    compactionIntervalMs: 0,
  });
  open.push(s);
  return s;
}

const widget = (name: string): KubeObject => ({
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns' },
  spec: {},
});
const key = (name: string) => `/registry/widgets/ns/${name}`;
describe('RedisStorage across a redis-server restart', () => {
  it('with its data kept: writes during the outage fail with Unreachable, the watch resumes with nothing lost or twice', async () => {
    const s = storage(kept);
    const watch = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion() });
    const acknowledged: KubeObject[] = [];
    for (const n of ['a', 'b', 'c']) acknowledged.push(await s.create(key(n), widget(n)));
    expect((await collect(watch, named('c'))).events).toHaveLength(3);

    await kept.kill();
    // The outage: a clear, retryable error, at once; nothing crashes.
    const during = await s.create(key('during'), widget('during')).catch((e: unknown) => e);
    expect(isStorageError(during, 'Unreachable'), String(during)).toBe(true);
    expect(toStatusError(during).code).toBe(500);
    const read = await s.get(key('a')).catch((e: unknown) => e);
    expect(isStorageError(read, 'Unreachable'), String(read)).toBe(true);

    await kept.restart();
    acknowledged.push(await whenReachable(() => s.create(key('d'), widget('d'))));
    for (const n of ['e', 'f']) acknowledged.push(await s.create(key(n), widget(n)));
    const { events, ended } = await collect(watch, (e) => e.type === 'ERROR' || named('f')(e));
    expect(ended).toBe(false);
    expect(events.map(brief)).toEqual(acknowledged.slice(3).map((o) => `ADDED ${o.metadata.name} ${o.metadata.resourceVersion}`));
    const listed = await s.list('/registry/widgets');
    expect(listed.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    watch.stop();
  });

  it('killed and restarted with its data under a stream of writes: every acknowledged write kept, the watch exactly the list', async () => {
    const s = storage(kept);
    const watch = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion() });
    const acknowledged = new Map<string, string>();
    const errors: unknown[] = [];
    let stop = false;
    let n = 0;
    const writer = (async () => {
      while (!stop) {
        const name = `w-${n++}`;
        try {
          acknowledged.set(name, (await s.create(key(name), widget(name))).metadata.resourceVersion as string);
        } catch (err) {
          errors.push(err);
          await sleep(5);
        }
      }
    })();
    const until = async (count: number) => {
      while (acknowledged.size < count) await sleep(5);
    };
    await until(30);
    await kept.kill();
    await sleep(100);
    await kept.restart();
    const after = acknowledged.size;
    await until(after + 30);
    stop = true;
    await writer;

    // A write Redis could not answer fails with Unreachable (it may or may not have been applied).
    expect(errors.length).toBeGreaterThan(0);
    for (const err of errors) expect(isStorageError(err, 'Unreachable'), String(err)).toBe(true);
    const listed = await s.list('/registry/widgets');
    const stored = new Map(listed.items.map((o) => [o.metadata.name as string, o.metadata.resourceVersion as string]));
    for (const [name, rv] of acknowledged) expect(stored.get(name), name).toBe(rv);
    const last = listed.metadata.resourceVersion;
    const { events } = await collect(watch, (e) => e.type === 'ERROR' || Number(e.object.metadata.resourceVersion) >= Number(last));
    const byRev = listed.items
      .map((o) => `ADDED ${o.metadata.name} ${o.metadata.resourceVersion}`)
      .sort((a, b) => Number(a.split(' ')[2]) - Number(b.split(' ')[2]));
    expect(events.map(brief)).toEqual(byRev);
    watch.stop();
  });

  it('without its data: an idle watch ends with one clean 410 (no write needed to notice), and a relist and rewatch work', async () => {
    const s = storage(lost);
    const watch = s.watch('/registry/widgets', { resourceVersion: await s.currentResourceVersion() });
    const a = await s.create(key('a'), widget('a'));
    expect((await collect(watch, named('a'))).events).toHaveLength(1);
    // Nobody writes after the restart: the watch reader itself finds the store's epoch gone when it reconnects.
    await lost.kill();
    await lost.restart();
    const { events, ended } = await collect(watch, () => false);
    expect(ended).toBe(true);
    expect(events.map(brief)).toEqual(['ERROR 410']);
    const status = events[0]?.object as Status | undefined;
    expect(status?.reason).toBe('Expired');
    expect(status?.message).toBe(DATA_LOST_MESSAGE);

    // What a reflector (or the Cacher) does after a 410: list again, then watch from the list's resourceVersion.
    const listed = await whenReachable(() => s.list('/registry/widgets'));
    expect(listed.items).toEqual([]);
    expect(Number(listed.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(a.metadata.resourceVersion));
    const again = s.watch('/registry/widgets', { resourceVersion: listed.metadata.resourceVersion });
    const b = await s.create(key('b'), widget('b'));
    expect((await collect(again, named('b'))).events.map(brief)).toEqual([`ADDED b ${b.metadata.resourceVersion}`]);
    again.stop();
  });
});

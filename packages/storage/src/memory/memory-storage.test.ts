import { FakeClock, type KubeObject, type WatchEvent } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { isStorageError } from '../storage-error.ts';
import { MemoryStorage } from './memory-storage.ts';

// Behaviour particular to the in-memory backend; the shared contract is covered by the conformance suite.
const P = '/registry/widgets/ns';
const obj = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Widget',
  metadata: { name },
  ...extra,
});

async function take(w: AsyncIterable<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const it = w[Symbol.asyncIterator]();
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('MemoryStorage (memory-specific)', () => {
  it('returns shared frozen objects and never keeps a reference to the caller’s input', async () => {
    const s = new MemoryStorage({ compaction: false });
    const input = obj('a', { spec: { n: 1 } });
    const created = await s.create(`${P}/a`, input);
    expect(input.metadata.resourceVersion).toBeUndefined();
    (input.spec as { n: number }).n = 2;
    const got = await s.get(`${P}/a`);
    expect(got).toBe(created);
    expect((got as unknown as { spec: { n: number } }).spec.n).toBe(1);
    expect(Object.isFrozen(got)).toBe(true);
    expect(() => {
      (got as KubeObject).metadata.name = 'b';
    }).toThrow(TypeError);
  });

  it('refuses objects that are not JSON', async () => {
    const s = new MemoryStorage({ compaction: false });
    await expect(s.create(`${P}/a`, obj('a', { n: 1n }))).rejects.toSatisfy((e) => isStorageError(e, 'InvalidObject'));
    expect(await s.count(P)).toBe(0);
  });

  it('compaction policy keepRevisions keeps the newest N revisions readable', async () => {
    const clock = new FakeClock();
    const s = new MemoryStorage({ clock, compaction: { keepRevisions: 3, intervalMs: 1000 } });
    for (let i = 0; i < 10; i++) await s.create(`${P}/o${i}`, obj(`o${i}`));
    clock.advance(1000);
    expect(s.compactedRevision).toBe(7);
    await expect(s.list(P, { resourceVersion: '7', resourceVersionMatch: 'Exact' })).resolves.toMatchObject({ items: { length: 7 } });
    await expect(s.list(P, { resourceVersion: '6', resourceVersionMatch: 'Exact' })).rejects.toSatisfy((e) => isStorageError(e, 'Expired'));
  });

  it('compaction policy keepSeconds drops history older than T, on the injected clock', async () => {
    const clock = new FakeClock();
    const s = new MemoryStorage({ clock, compaction: { keepSeconds: 60, intervalMs: 10_000 } });
    await s.create(`${P}/old`, obj('old')); // rev 1 at t0
    clock.advance(30_000);
    await s.create(`${P}/mid`, obj('mid')); // rev 2 at t0+30s
    clock.advance(40_000); // t0+70s: rev 1 is older than 60 s
    expect(s.compactedRevision).toBe(1);
    clock.advance(30_000); // t0+100s: rev 2 is older than 60 s
    expect(s.compactedRevision).toBe(2);
    expect((await s.list(P)).items.map((o) => o.metadata.name)).toEqual(['mid', 'old']);
  });

  it('compaction policy maxHistoryBytes: past it a write compacts from the oldest change on; creates alone are no history', async () => {
    const clock = new FakeClock();
    // Each version is about 1,100 bytes of JSON; the bound holds about four superseded ones.
    const s = new MemoryStorage({ clock, compaction: { keepSeconds: 3600, maxHistoryBytes: 4500 } });
    const big = (name: string, v: number) => obj(name, { data: `${v}`.padEnd(1000, '.') });
    for (let i = 0; i < 10; i++) await s.create(`${P}/o${i}`, big(`o${i}`, 0)); // revs 1..10
    expect(s.compactedRevision).toBe(0);
    for (let v = 1; v <= 4; v++) await s.guaranteedUpdate(`${P}/o0`, async () => big('o0', v)); // revs 11..14
    expect(s.compactedRevision).toBe(0);
    await s.guaranteedUpdate(`${P}/o0`, async () => big('o0', 5)); // rev 15: five superseded versions, over the bound
    // Compacted down to three quarters of the bound: the versions replaced at 11 and 12 are gone.
    expect(s.compactedRevision).toBe(12);
    await expect(s.list(P, { resourceVersion: '11', resourceVersionMatch: 'Exact' })).rejects.toSatisfy((e) =>
      isStorageError(e, 'Expired'),
    );
    const at12 = await s.list(P, { resourceVersion: '12', resourceVersionMatch: 'Exact' });
    expect(at12.items.find((o) => o.metadata.name === 'o0')?.data).toBe('2'.padEnd(1000, '.'));
    const w = s.watch(P, { resourceVersion: '10' });
    const first = await w[Symbol.asyncIterator]().next();
    expect(first.value).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    expect((await s.get(`${P}/o0`))?.data).toBe('5'.padEnd(1000, '.'));
    expect(await s.count(P)).toBe(10);
  });

  it('with both rules, history is kept while either rule wants it', async () => {
    const clock = new FakeClock();
    const s = new MemoryStorage({ clock, compaction: { keepRevisions: 1, keepSeconds: 3600, intervalMs: 1000 } });
    for (let i = 0; i < 5; i++) await s.create(`${P}/o${i}`, obj(`o${i}`));
    clock.advance(1000);
    expect(s.compactedRevision).toBe(0);
  });

  it('compaction removes deleted keys from history and the key space', async () => {
    const s = new MemoryStorage({ compaction: false });
    await s.create(`${P}/a`, obj('a'));
    await s.delete(`${P}/a`);
    await s.create(`${P}/b`, obj('b'));
    await s.compact(3);
    expect((await s.list(P)).items.map((o) => o.metadata.name)).toEqual(['b']);
    await s.create(`${P}/a`, obj('a'));
    expect((await s.list(P)).items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
  });

  it('compacting past the head is refused', async () => {
    const s = new MemoryStorage({ compaction: false });
    await expect(s.compact(5)).rejects.toSatisfy((e) => isStorageError(e, 'TooLargeResourceVersion'));
  });

  it('an update removes the TTL that the create carried (as an etcd put without the lease)', async () => {
    const clock = new FakeClock();
    const s = new MemoryStorage({ clock, compaction: false });
    await s.create(`${P}/a`, obj('a'), { ttlSeconds: 5 });
    await s.guaranteedUpdate(`${P}/a`, (c) => ({ ...(c as KubeObject), spec: { x: 1 } }));
    clock.advance(6000);
    expect(await s.get(`${P}/a`, { ignoreNotFound: true })).not.toBeNull();
  });

  it('progress bookmarks go only to idle watchers that asked for them', async () => {
    const clock = new FakeClock();
    const s = new MemoryStorage({ clock, compaction: false, progressNotifyIntervalMs: 100 });
    const progress = s.watch(P, { resourceVersion: '0', progressNotify: true });
    const plain = s.watch(P, { resourceVersion: '0' });
    clock.advance(100);
    const [bm] = await take(progress, 1);
    expect(bm).toEqual({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '0' } } });
    await s.create(`${P}/a`, obj('a'));
    clock.advance(100); // active during this interval: no bookmark
    clock.advance(100); // idle: bookmark at the latest revision
    const events = await take(progress, 2);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(events[1]?.object.metadata).toEqual({ resourceVersion: '1' });
    const plainEvents = await take(plain, 1);
    expect(plainEvents.map((e) => e.type)).toEqual(['ADDED']);
    progress.stop();
    plain.stop();
  });

  it('ends a watcher that stops reading past watchQueueLimit while others keep receiving', async () => {
    const s = new MemoryStorage({ compaction: false, watchQueueLimit: 10 });
    const stalled = s.watch(P, { resourceVersion: '0' });
    const reader = s.watch(P, { resourceVersion: '0' });
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of reader) {
        got.push(e.type === 'ERROR' ? 'ERROR' : (e.object.metadata.name ?? ''));
        if (got.length === 50) break;
      }
    })();
    for (let i = 0; i < 50; i++) await s.create(`${P}/o${String(i).padStart(2, '0')}`, obj(`o${i}`));
    await reading;
    expect(got).toHaveLength(50);
    const seen = await take(stalled, 100);
    expect(seen).toHaveLength(10);
  });

  it('close() ends every watch and later calls fail as Unreachable', async () => {
    const s = new MemoryStorage({ compaction: false });
    const w = s.watch(P, { resourceVersion: '0' });
    const done = take(w, 1);
    await s.close();
    expect(await done).toEqual([]);
    await expect(s.create(`${P}/a`, obj('a'))).rejects.toSatisfy((e) => isStorageError(e, 'Unreachable'));
    const after = s.watch(P);
    expect(await take(after, 1)).toEqual([]);
  });
});

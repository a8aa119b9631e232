import { randomBytes } from 'node:crypto';
import type { KubeObject, Status, WatchEvent } from '@kapi/apimachinery';
import { isStorageError } from '@kapi/storage';
import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStorage, type EtcdStorageOptions } from './etcd-storage.ts';
import { brief, readUntil } from './test-support/read-until.ts';

// Faults on one real etcd: it is killed (SIGKILL, as a crash) and restarted with its data in these tests.
let etcd: EtcdServer;
const open: EtcdStorage[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  if (etcd.pid === undefined) await etcd.restart();
});
afterAll(async () => {
  await etcd?.stop();
});

const dir = '/registry/widgets/faults';

function storage(options: Partial<EtcdStorageOptions> = {}): EtcdStorage {
  const s = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/kapi-faults-${randomBytes(6).toString('hex')}`, ...options });
  open.push(s);
  return s;
}

function widget(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name, namespace: 'faults' }, spec };
}

/** Retries `fn` while etcd is still coming back (Unreachable), for up to `ms`. */
async function whenReachable<T>(fn: () => Promise<T>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isStorageError(err, 'Unreachable') || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function elapsed<T>(p: Promise<T>): Promise<[T | unknown, number]> {
  const t0 = performance.now();
  try {
    return [await p, performance.now() - t0];
  } catch (err) {
    return [err, performance.now() - t0];
  }
}

describe('EtcdStorage faults', () => {
  it('a watch survives an etcd crash and restart: every write before and after arrives once, in order', async () => {
    const s = storage();
    const start = await s.currentResourceVersion();
    const all = s.watch(dir, { resourceVersion: start });
    const withProgress = s.watch(dir, { resourceVersion: start, progressNotify: true });
    const written: KubeObject[] = [];
    for (let i = 0; i < 5; i++) written.push(await s.create(`${dir}/before-${i}`, widget(`before-${i}`)));
    // One watcher has read two events; the rest of the writes' events may still be on the wire when etcd crashes.
    const seen = await readUntil(all, (e) => e.type !== 'ADDED' || e.object.metadata.name === 'before-1');
    await etcd.kill();
    await etcd.restart();
    written.push(await whenReachable(() => s.create(`${dir}/after-0`, widget('after-0'))));
    for (let i = 1; i < 5; i++) written.push(await s.create(`${dir}/after-${i}`, widget(`after-${i}`)));
    written.push(await s.guaranteedUpdate(`${dir}/before-0`, (cur) => ({ ...(cur as KubeObject), spec: { size: 2 } })));
    const expected = written.map(
      (o, i) => `${i < written.length - 1 ? 'ADDED' : 'MODIFIED'} ${o.metadata.name}@${o.metadata.resourceVersion}`,
    );
    const last = written[written.length - 1]?.metadata.resourceVersion;
    for (const w of [all, withProgress]) {
      const got = await readUntil(w, (e) => e.type === 'ERROR' || e.object.metadata.resourceVersion === last);
      expect([...(w === all ? seen : []), ...got].map(brief)).toEqual(expected);
      w.stop();
    }
  });

  it('a watch whose next revision was compacted while etcd was down ends with one 410 ERROR', async () => {
    const s = storage();
    const a = await s.create(`${dir}/a`, widget('a'));
    // A watch of one key: writes elsewhere do not move its position, so after compaction it cannot resume.
    const w = s.watch(`${dir}/a`, { recursive: false, resourceVersion: a.metadata.resourceVersion });
    let rev = 0;
    for (let i = 0; i < 3; i++) rev = Number((await s.create(`${dir}/other-${i}`, widget(`other-${i}`))).metadata.resourceVersion);
    await s.compact(rev);
    await etcd.kill();
    await etcd.restart();
    const events = await readUntil(w, () => false);
    expect(events.map(brief)).toEqual(['ERROR 410']);
    expect((events[0]?.object as Status | undefined)?.reason).toBe('Expired');
  });

  it('with etcd down, create, get, list, count and a new watch fail fast with Unreachable', async () => {
    const s = storage();
    await s.create(`${dir}/a`, widget('a'));
    await etcd.kill();
    const calls: [string, () => Promise<unknown>][] = [
      ['create', () => s.create(`${dir}/b`, widget('b'))],
      ['get', () => s.get(`${dir}/a`)],
      ['list', () => s.list(dir)],
      ['count', () => s.count(dir)],
      ['guaranteedUpdate', () => s.guaranteedUpdate(`${dir}/a`, (cur) => cur as KubeObject)],
      ['delete', () => s.delete(`${dir}/a`)],
      ['currentResourceVersion', () => s.currentResourceVersion()],
    ];
    for (const [name, call] of calls) {
      const [err, ms] = await elapsed(call());
      expect(isStorageError(err, 'Unreachable'), `${name}: ${String(err)}`).toBe(true);
      expect(ms, `${name} took ${ms} ms`).toBeLessThan(1000);
      const status = (err as { toStatusError(): { code: number } }).toStatusError();
      expect(status.code).toBe(500);
    }
    const [events, ms] = await elapsed(readUntil(s.watch(dir), () => false, 5000));
    expect((events as WatchEvent[]).map(brief)).toEqual(['ERROR 500']);
    expect(ms).toBeLessThan(1000);
  });

  it('a watch that cannot reach etcd for watchReconnectTimeoutMs ends with an ERROR instead of hanging', async () => {
    const s = storage({ watchReconnectTimeoutMs: 700 });
    const w = s.watch(dir, { resourceVersion: await s.currentResourceVersion() });
    await etcd.kill();
    const [events, ms] = await elapsed(readUntil(w, () => false, 10_000));
    expect((events as WatchEvent[]).map(brief)).toEqual(['ERROR 500']);
    expect(ms).toBeLessThan(3000);
  });

  it('a shared lease etcd no longer knows (revoked) is replaced: the TTL create still succeeds', async () => {
    const s = storage();
    await s.create(`${dir}/ttl-a`, widget('ttl-a'), { ttlSeconds: 300 });
    const gateway = (path: string, body: unknown) =>
      fetch(`${etcd.endpoint}${path}`, { method: 'POST', body: JSON.stringify(body) }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    const leases = ((await gateway('/v3/lease/leases', {})).leases ?? []) as { ID: string }[];
    expect(leases.length).toBeGreaterThan(0);
    for (const l of leases) await gateway('/v3/lease/revoke', { ID: l.ID });
    // The storage would reuse the revoked lease for this key: etcd refuses it, and the create goes on with a new one.
    const b = await s.create(`${dir}/ttl-b`, widget('ttl-b'), { ttlSeconds: 300 });
    expect(await s.get(`${dir}/ttl-b`)).toMatchObject({ metadata: { name: 'ttl-b', resourceVersion: b.metadata.resourceVersion } });
    expect(await s.get(`${dir}/ttl-a`, { ignoreNotFound: true })).toBeNull();
  });

  it('50 concurrent writers on 5 clients incrementing one key lose no update', async () => {
    const prefix = `/kapi-faults-shared-${randomBytes(6).toString('hex')}`;
    const shared = Array.from({ length: 5 }, () => storage({ prefix }));
    await shared[0]?.create(`${dir}/counter`, widget('counter', { count: 0 }));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (shared[i % shared.length] as EtcdStorage).guaranteedUpdate(`${dir}/counter`, (cur) => {
          const c = cur as KubeObject & { spec: { count: number } };
          return { ...c, spec: { count: c.spec.count + 1 } };
        }),
      ),
    );
    const final = (await shared[1]?.get(`${dir}/counter`)) as KubeObject & { spec: { count: number } };
    expect(final.spec.count).toBe(50);
    const counts = results.map((r) => (r.spec as { count: number }).count).sort((x, y) => x - y);
    expect(counts).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.metadata.resourceVersion)).size).toBe(50);
  });

  it('an object over 1.5 MiB is RequestTooLarge (413) and nothing is written', async () => {
    const s = storage();
    const big = widget('big', { blob: 'x'.repeat(1.5 * 1024 * 1024) });
    const before = await s.currentResourceVersion();
    const [err] = await elapsed(s.create(`${dir}/big`, big));
    expect(isStorageError(err, 'RequestTooLarge'), String(err)).toBe(true);
    expect((err as { toStatusError(): { code: number } }).toStatusError().code).toBe(413);
    const [getErr] = await elapsed(s.get(`${dir}/big`));
    expect(isStorageError(getErr, 'KeyNotFound')).toBe(true);
    await s.create(`${dir}/small`, widget('small'));
    const [updErr] = await elapsed(s.guaranteedUpdate(`${dir}/small`, () => big));
    expect(isStorageError(updErr, 'RequestTooLarge')).toBe(true);
    expect(Number(await s.currentResourceVersion())).toBe(Number(before) + 1);
  });

  it("etcd's own refusal of a large request maps to RequestTooLarge as well", async () => {
    // Let the client send: etcd refuses 1.6 MiB (its --max-request-bytes) and gRPC refuses 3 MiB (its message limit).
    const s = storage({ maxRequestBytes: 64 * 1024 * 1024 });
    for (const size of [1.6, 3]) {
      const [err] = await elapsed(s.create(`${dir}/big`, widget('big', { blob: 'x'.repeat(size * 1024 * 1024) })));
      expect(isStorageError(err, 'RequestTooLarge'), `${size} MiB: ${String(err)}`).toBe(true);
    }
    const [getErr] = await elapsed(s.get(`${dir}/big`));
    expect(isStorageError(getErr, 'KeyNotFound')).toBe(true);
  });
});

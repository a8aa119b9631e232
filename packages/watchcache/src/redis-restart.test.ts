import { randomBytes } from 'node:crypto';
import type { KubeObject, Status } from '@kapi/apimachinery';
import { RedisStorage } from '@kapi/storage-redis';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, sleep, whenReachable } from '../../storage-redis/src/test-support/watch-reading.ts';
import { Cacher } from './cacher.ts';

// A real redis-server restarted without its data under a Cacher: the storage's watch ends with 410, the Cacher
// relists, its own watchers are ended (never left hanging) and it serves the store as it now is.
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const widget = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name, namespace: 'ns' } });

describe('Cacher over RedisStorage across a redis-server restart that lost the data', () => {
  it('its watchers end, it relists, and it serves what the store now holds', async () => {
    const storage = new RedisStorage({ url: redis.url, prefix: `restart-${randomBytes(6).toString('hex')}`, watchPollBlockMs: 200 });
    const widgets = '/registry/widgets';
    const cacher = new Cacher({ storage, resourcePrefix: widgets });
    try {
      await cacher.ready();
      for (const n of ['a', 'b']) await cacher.create(`${widgets}/ns/${n}`, widget(n));
      const listed = await cacher.list(widgets);
      expect(listed.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
      const w = cacher.watch(widgets, { resourceVersion: listed.metadata.resourceVersion });

      await redis.restart();
      // The Cacher's watcher ends (as kube's cacher terminates its watchers), never left waiting in silence; at most
      // with a 410 ERROR.
      const { events } = await collect(w, () => false, 10_000);
      for (const e of events) expect(e.type === 'ERROR' ? (e.object as Status).code : e.type).toBe(410);

      const c = await whenReachable(() => cacher.create(`${widgets}/ns/c`, widget('c')));
      const deadline = Date.now() + 10_000;
      for (;;) {
        const now = await whenReachable(() => cacher.list(widgets, { resourceVersion: '0' })).catch((e: unknown) => e);
        const names = (now as { items?: KubeObject[] }).items?.map((o) => o.metadata.name);
        if (JSON.stringify(names) === JSON.stringify(['c'])) break;
        if (Date.now() > deadline) throw new Error(`the cache still serves ${JSON.stringify(names ?? String(now))}`);
        await sleep(50);
      }
      expect(await cacher.get(`${widgets}/ns/c`)).toMatchObject({ metadata: { resourceVersion: c.metadata.resourceVersion } });
      // A client re-watching from where it was is told to relist: its history is gone.
      const again = (await collect(cacher.watch(widgets, { resourceVersion: listed.metadata.resourceVersion }), () => false, 5000)).events;
      expect(again.map((e) => (e.type === 'ERROR' ? `ERROR ${(e.object as Status).code} ${(e.object as Status).reason}` : e.type))).toEqual(
        ['ERROR 410 Expired'],
      );
    } finally {
      await cacher.close();
      await storage.close();
    }
  });
});

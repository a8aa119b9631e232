import { randomBytes } from 'node:crypto';
import { EtcdStorage } from '@kapi/storage-etcd';
import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cacher } from './cacher.ts';
import {
  checkConsistentReadAfterWrite,
  runCacherConformance,
  runCacherDeepNestingCases,
  runCacherWatchCases,
} from './test-support/cacher-suites.ts';

// One real etcd for the file; every case gets a fresh EtcdStorage under a fresh key prefix, and a Cacher in front.
let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

const prefix = () => `/kapi-test-${randomBytes(6).toString('hex')}`;
const resourcePrefix = () => `/registry/widgets-${randomBytes(4).toString('hex')}`;

runCacherConformance(
  'Cacher over EtcdStorage',
  () => ({
    storage: new EtcdStorage({ endpoints: [etcd.endpoint], prefix: prefix(), progressIntervalMs: 200 }),
    resourcePrefix: resourcePrefix(),
  }),
  { progressIntervalMs: 200 },
);

runCacherWatchCases('Cacher over EtcdStorage', () => ({
  storage: new EtcdStorage({ endpoints: [etcd.endpoint], prefix: prefix() }),
  resourcePrefix: resourcePrefix(),
}));

runCacherDeepNestingCases('Cacher over EtcdStorage', () => ({
  storage: new EtcdStorage({ endpoints: [etcd.endpoint], prefix: prefix() }),
  resourcePrefix: resourcePrefix(),
}));

describe('Cacher in front of EtcdStorage', () => {
  it('a consistent get of a quiet kind costs a backend read, never the freshness timeout, whatever the etcd version', async () => {
    // etcd's own progress interval (10 minutes by default), not the test servers' 100 ms: before 3.4.31 / 3.5.13 a
    // quiet range gets a progress notification only on that timer, so a cache cannot confirm its freshness on request.
    const slow = await startEtcd({ progressNotifyInterval: '10m' });
    const storage = new EtcdStorage({ endpoints: [slow.endpoint], prefix: prefix() });
    const widgets = resourcePrefix();
    const cacher = new Cacher({ storage, resourcePrefix: widgets });
    try {
      await cacher.ready();
      const prompt = await storage.checkPromptWatchProgress();
      const a = await cacher.create(`${widgets}/ns/a`, { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'a', namespace: 'ns' } });
      await cacher.list(widgets, { resourceVersion: a.metadata.resourceVersion, resourceVersionMatch: 'NotOlderThan' });
      // Another kind is written: the backend's revision moves on, the widgets stay quiet.
      await storage.create('/registry/gadgets/ns/x', { apiVersion: 'v1', kind: 'Gadget', metadata: { name: 'x', namespace: 'ns' } });
      expect(await cacher.get(`${widgets}/ns/a`)).toEqual(a);
      expect((await cacher.list(widgets)).items).toEqual([a]);
      expect(cacher.stats()).toMatchObject({ consistentReadFallbacks: 0, consistentReadsDelegated: prompt ? 0 : 2 });
    } finally {
      await cacher.close();
      await storage.close();
      await slow.stop();
    }
  });

  it('a consistent read right after a write returns that write, through the cache or behind its back', async () => {
    await checkConsistentReadAfterWrite(new EtcdStorage({ endpoints: [etcd.endpoint], prefix: prefix() }), resourcePrefix());
  });
});

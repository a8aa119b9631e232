import { randomBytes } from 'node:crypto';
import { EtcdStorage } from '@kapi/storage-etcd';
import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkConsistentReadAfterWrite, runCacherConformance, runCacherWatchCases } from './test-support/cacher-suites.ts';

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

describe('Cacher in front of EtcdStorage', () => {
  it('a consistent read right after a write returns that write, through the cache or behind its back', async () => {
    await checkConsistentReadAfterWrite(new EtcdStorage({ endpoints: [etcd.endpoint], prefix: prefix() }), resourcePrefix());
  });
});

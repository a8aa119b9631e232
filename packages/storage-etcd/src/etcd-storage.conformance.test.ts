import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { runEtcdConformance } from './test-support/etcd-conformance.ts';

// One real etcd for the file; every case gets a fresh EtcdStorage under a fresh key prefix.
let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

runEtcdConformance('EtcdStorage', () => ({ endpoints: [etcd.endpoint] }));

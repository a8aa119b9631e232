import { randomBytes } from 'node:crypto';
import { runStorageConformance } from '@kapi/storage/conformance';
import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { EtcdStorage } from './etcd-storage.ts';

// One real etcd for the file; every case gets a fresh EtcdStorage under a fresh key prefix.
let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

/** etcd notifies progress every 100 ms here; BOOKMARKs wait for 200 ms of quiet, and the suite waits 500 ms for one. */
const PROGRESS_QUIET_MS = 200;

runStorageConformance(
  'EtcdStorage',
  async () => {
    const storage = new EtcdStorage({
      endpoints: [etcd.endpoint],
      prefix: `/kapi-test-${randomBytes(6).toString('hex')}`,
      progressIntervalMs: PROGRESS_QUIET_MS,
    });
    return {
      storage,
      resourcePrefix: '/registry/widgets',
      compact: (rev) => storage.compact(rev),
      elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      close: () => storage.close(),
    };
  },
  { progressIntervalMs: 500 },
);

import { randomBytes } from 'node:crypto';
import { runStorageConformance } from '@kapi/storage/conformance';
import { type EtcdCluster, startEtcdCluster } from '@kapi/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { EtcdStorage } from './etcd-storage.ts';

// The storage contract on a real 3-member cluster, through a follower first: its writes are forwarded to the leader,
// its linearizable reads wait for the leader's read index, its watches are served from the follower's own store.
let cluster: EtcdCluster;
let endpoints: string[];
beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 3 });
  const leader = await cluster.leader();
  endpoints = [...cluster.endpoints.filter((e) => e !== leader.clientURL), leader.clientURL];
});
afterAll(async () => {
  await cluster?.stop();
});

/** etcd notifies progress every 100 ms here; BOOKMARKs wait for 200 ms of quiet, and the suite waits 500 ms for one. */
const PROGRESS_QUIET_MS = 200;

runStorageConformance(
  'EtcdStorage on a 3-member cluster',
  async () => {
    const storage = new EtcdStorage({
      endpoints,
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

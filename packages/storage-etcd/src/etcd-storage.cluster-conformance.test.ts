import { type EtcdCluster, startEtcdCluster } from '@kapi/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { runEtcdConformance } from './test-support/etcd-conformance.ts';

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

runEtcdConformance('EtcdStorage on a 3-member cluster', () => ({ endpoints }));

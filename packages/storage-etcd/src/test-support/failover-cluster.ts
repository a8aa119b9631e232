import { randomBytes } from 'node:crypto';
import type { KubeObject } from '@kapi/apimachinery';
import { type EtcdCluster, type EtcdMember, startEtcdCluster } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { EtcdStorage } from '../etcd-storage.ts';

// Shared setup of the failover tests on a real 3-member etcd cluster: members are killed (SIGKILL) or paused
// (SIGSTOP) by the tests and started again after each one.

export const dir = '/registry/widgets/failover';

export interface FailoverCluster {
  /** The cluster of the calling test file (started in its beforeAll). */
  readonly cluster: EtcdCluster;
  /** A storage that talks to `first` first (members are tried in the order given); `byName`: endpoints as localhost. */
  storage(first: EtcdMember, byName?: boolean, requestTimeoutMs?: number): EtcdStorage;
}

/** Registers the hooks of the calling test file: one cluster for the file, storages closed and members restarted after each test. */
export function useFailoverCluster(): FailoverCluster {
  let cluster: EtcdCluster | undefined;
  const open: EtcdStorage[] = [];
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 3 });
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const m of cluster?.members ?? []) await m.start();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const started = (): EtcdCluster => {
    if (!cluster) throw new Error('the etcd cluster is not started yet');
    return cluster;
  };
  return {
    get cluster() {
      return started();
    },
    storage(first, byName = false, requestTimeoutMs) {
      const ordered = [first.clientURL, ...started().endpoints.filter((e) => e !== first.clientURL)];
      const endpoints = byName ? ordered.map((e) => e.replace('127.0.0.1', 'localhost')) : ordered;
      const s = new EtcdStorage({ endpoints, prefix: `/kapi-failover-${randomBytes(6).toString('hex')}`, requestTimeoutMs });
      open.push(s);
      return s;
    },
  };
}

export function widget(name: string): KubeObject {
  return { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name, namespace: 'failover' }, spec: {} };
}

import { randomBytes } from 'node:crypto';
import type { KubeObject, Status, WatchEvent } from '@kapi/apimachinery';
import type { Watch } from '@kapi/storage';
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

export const brief = (e: WatchEvent) =>
  e.type === 'ERROR' ? `ERROR ${(e.object as Status).code}` : `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`;

/** Reads events (skipping bookmarks) until `stop` accepts one, failing after `ms`. */
export async function readUntil(w: Watch, stop: (e: WatchEvent) => boolean, ms = 15_000): Promise<WatchEvent[]> {
  const it = w[Symbol.asyncIterator]();
  const out: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), Math.max(1, deadline - Date.now()));
    });
    const r = await Promise.race([it.next(), timeout]);
    clearTimeout(timer);
    if (r === 'timeout') throw new Error(`watch stalled after ${out.length} events: ${out.slice(-3).map(brief).join(', ')}`);
    if (r.done) return out;
    if (r.value.type === 'BOOKMARK') continue;
    out.push(r.value);
    if (stop(r.value)) return out;
  }
}

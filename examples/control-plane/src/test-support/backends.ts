import { MemoryStorage, type Storage } from '@kapi/storage';
import { EtcdStorage } from '@kapi/storage-etcd';
import { RedisStorage } from '@kapi/storage-redis';
import { startEtcd, startRedis } from '@kapi/test-servers';

/**
 * Dev-only (excluded from the build): the backends the end-to-end suites run on, each started for real. A backend that
 * cannot start (its binary missing included) fails the suite; it is never skipped.
 */
export const BACKENDS = ['memory', 'etcd', 'redis'] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface TestBackend {
  readonly name: BackendName;
  /** A new Storage on the backend whose keys are apart from every other one this backend handed out. */
  storage(): Storage;
  /** Stops the server (the storages handed out are closed by whoever owns them, e.g. the control plane). */
  stop(): Promise<void>;
}

/**
 * Starts one server of the backend (none for memory), to be shared by a test file: each control plane gets a storage
 * of its own from `storage()`. etcd runs with its default progress-notify interval (10 minutes), as a user runs it,
 * so anything that waits on etcd's own progress timer shows in the suite's run time.
 */
export async function startBackend(name: BackendName): Promise<TestBackend> {
  let next = 0;
  switch (name) {
    case 'memory':
      return { name, storage: () => new MemoryStorage(), stop: async () => {} };
    case 'etcd': {
      const etcd = await startEtcd({ progressNotifyInterval: '10m' });
      return {
        name,
        storage: () => new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/e2e-${next++}` }),
        stop: () => etcd.stop(),
      };
    }
    case 'redis': {
      const redis = await startRedis();
      return { name, storage: () => new RedisStorage({ url: redis.url, prefix: `e2e-${next++}` }), stop: () => redis.stop() };
    }
  }
}

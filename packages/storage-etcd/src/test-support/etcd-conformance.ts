import { randomBytes } from 'node:crypto';
import { runStorageConformance } from '@kapi/storage/conformance';
import { EtcdStorage, type EtcdStorageOptions } from '../etcd-storage.ts';

// Shared by the conformance files (one etcd, a cluster, TLS): how the shared storage suite runs on EtcdStorage.

/** test-servers' etcd notifies progress every 100 ms; BOOKMARKs wait for 200 ms of quiet, and the suite waits 500 ms for one. */
const PROGRESS_QUIET_MS = 200;

/**
 * Registers the shared storage suite under `name`: every case gets a fresh EtcdStorage under a fresh key prefix on the
 * etcd `connection()` names (called per case, so after the file's beforeAll has started it).
 */
export function runEtcdConformance(name: string, connection: () => Pick<EtcdStorageOptions, 'endpoints' | 'tls'>): void {
  runStorageConformance(
    name,
    async () => {
      const storage = new EtcdStorage({
        ...connection(),
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
}

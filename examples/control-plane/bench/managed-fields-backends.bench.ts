/**
 * What server-side apply costs a client on the backends a control plane runs on in production: the rows of
 * server-core's managed-fields bench (ConfigMap create, PUT, merge patch and apply over HTTP, with managedFields vs
 * the server before server-side apply) on a real etcd and a real Redis, each started here. On MemoryStorage
 * (server-core's own run) the write itself costs least, so the field manager's share shows largest there; here the
 * write includes the backend's round trip, as it does for a user. Each server gets its own key prefix.
 * Run: `npm run bench` in examples/control-plane (starts and stops its own etcd and redis-server).
 */
import { randomUUID } from 'node:crypto';
import type { Storage } from '@kapi/storage';
import { EtcdStorage } from '@kapi/storage-etcd';
import { RedisStorage } from '@kapi/storage-redis';
import { startEtcd, startRedis } from '@kapi/test-servers';
import { runManagedFieldsBench } from '../../../packages/server-core/bench/managed-fields-writes.ts';

const storages: { close(): Promise<void> }[] = [];
const opened = <S extends Storage & { close(): Promise<void> }>(s: S): S => {
  storages.push(s);
  return s;
};

const etcd = await startEtcd();
const redis = await startRedis();
try {
  await runManagedFieldsBench('EtcdStorage (etcd on loopback)', (server) =>
    opened(new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/bench-${server}-${randomUUID()}` })),
  );
  await runManagedFieldsBench('RedisStorage (redis-server on loopback)', (server) =>
    opened(new RedisStorage({ url: redis.url, prefix: `bench-${server}-${randomUUID()}`, compactionIntervalMs: 0 })),
  );
} finally {
  for (const s of storages) await s.close();
  await etcd.stop();
  await redis.stop();
}
process.exit(0);

import { randomBytes } from 'node:crypto';
import { runStorageConformance } from '@kapi/storage/conformance';
import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { EtcdStorage } from './etcd-storage.ts';

// The whole shared suite over TLS: one real etcd for the file serving https:// with a CA made at run time and
// --client-cert-auth; every case gets a fresh EtcdStorage (its own TLS connection) under a fresh key prefix.
let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd({ tls: true });
});
afterAll(async () => {
  await etcd?.stop();
});

/** As etcd-storage.conformance.test.ts: BOOKMARKs wait for 200 ms of quiet, and the suite waits 500 ms for one. */
const PROGRESS_QUIET_MS = 200;

runStorageConformance(
  'EtcdStorage over TLS with a client certificate',
  async () => {
    const tls = etcd.tls;
    if (!tls) throw new Error('startEtcd({ tls: true }) gave no TLS credentials');
    const storage = new EtcdStorage({
      endpoints: [etcd.endpoint],
      tls: { ca: tls.ca.pem, cert: tls.client.cert, key: tls.client.key },
      prefix: `/kapi-tls-${randomBytes(6).toString('hex')}`,
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

import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { runEtcdConformance } from './test-support/etcd-conformance.ts';

// The whole shared suite over TLS: one real etcd for the file serving https:// with a CA made at run time and
// --client-cert-auth; every case gets a fresh EtcdStorage (its own TLS connection) under a fresh key prefix.
let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd({ tls: true });
});
afterAll(async () => {
  await etcd?.stop();
});

runEtcdConformance('EtcdStorage over TLS with a client certificate', () => {
  const tls = etcd.tls;
  if (!tls) throw new Error('startEtcd({ tls: true }) gave no TLS credentials');
  return { endpoints: [etcd.endpoint], tls: { ca: tls.ca.pem, cert: tls.client.cert, key: tls.client.key } };
});

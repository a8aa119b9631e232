export { type EtcdOptions, type EtcdServer, startEtcd } from './etcd.ts';
export { type EtcdCluster, type EtcdClusterOptions, type EtcdMember, startEtcdCluster } from './etcd-cluster.ts';
export type { EtcdTLS, EtcdTLSOptions } from './etcd-tls.ts';
export { freePort } from './free-port.ts';
export { requireBinary, type TestServer } from './process-server.ts';
export { type RedisOptions, type RedisServer, startRedis } from './redis.ts';
export { type IssueOptions, makeTestCA, type TestCA, type TestCertificate } from './test-ca.ts';

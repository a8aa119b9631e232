export { type EtcdOptions, type EtcdServer, startEtcd } from './etcd.ts';
export { freePort } from './free-port.ts';
export { requireBinary, type TestServer } from './process-server.ts';
export { type RedisServer, startRedis } from './redis.ts';

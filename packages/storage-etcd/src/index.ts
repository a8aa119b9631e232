export type { EtcdTLSOptions } from './client/tls-credentials.ts';
export { EtcdStorage, type EtcdStorageOptions } from './etcd-storage.ts';
export { type EtcdURL, parseEtcdURL } from './etcd-url.ts';

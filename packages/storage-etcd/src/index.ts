export { EtcdStorage, type EtcdStorageOptions } from './etcd-storage.ts';

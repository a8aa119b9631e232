export type { KeyLayout } from './key-layout.ts';
export { RedisStorage, type RedisStorageOptions } from './redis-storage.ts';

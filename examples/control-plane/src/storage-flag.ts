import { MemoryStorage, type Storage } from '@kapi/storage';
import { EtcdStorage } from '@kapi/storage-etcd';
import { RedisStorage } from '@kapi/storage-redis';

/** The backend a --storage value names: `memory`, `etcd://host:port[/prefix]` or `redis://host:port`. */
export function storageFromFlag(flag: string): Storage {
  if (flag === 'memory') return new MemoryStorage();
  const url = URL.parse(flag);
  if (url?.protocol === 'etcd:')
    return new EtcdStorage({ endpoints: [`http://${url.host}`], prefix: url.pathname.length > 1 ? url.pathname : '' });
  if (url?.protocol === 'redis:' || url?.protocol === 'rediss:') return new RedisStorage({ url: flag });
  throw new Error(`--storage must be memory, etcd://host:port or redis://host:port, not ${JSON.stringify(flag)}`);
}

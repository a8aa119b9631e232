import { MemoryStorage, type Storage } from '@kapi/storage';
import { EtcdStorage, parseEtcdURL } from '@kapi/storage-etcd';
import { RedisStorage } from '@kapi/storage-redis';

/**
 * The backend a --storage value names: `memory`, `etcd://host:port[,host:port…][/prefix]` (several members, failed
 * over between as kube-apiserver's --etcd-servers) or `redis://host:port[/db]`.
 */
export function storageFromFlag(flag: string): Storage {
  if (flag === 'memory') return new MemoryStorage();
  if (flag.startsWith('etcd://')) {
    try {
      return new EtcdStorage(parseEtcdURL(flag));
    } catch (err) {
      throw new Error(`--storage: ${(err as Error).message}`);
    }
  }
  const url = URL.parse(flag);
  if (url?.protocol === 'redis:' || url?.protocol === 'rediss:') return new RedisStorage({ url: flag });
  // Several etcd members: etcd://host:port,host:port/prefix (parseEtcdURL's errors say what is wrong with one).
  throw new Error(`--storage must be memory, etcd://host:port or redis://host:port, not ${JSON.stringify(flag)}`);
}

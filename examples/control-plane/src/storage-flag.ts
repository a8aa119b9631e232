import { MemoryStorage, type Storage } from '@kapi/storage';
import { EtcdStorage, type EtcdTLSOptions, parseEtcdURL } from '@kapi/storage-etcd';
import { RedisStorage } from '@kapi/storage-redis';

/**
 * The backend a --storage value names: `memory`, `etcd://host:port[,host:port…][/prefix]` (several members, failed
 * over between as kube-apiserver's --etcd-servers), the same over TLS as `etcds://…` (with `etcdTLS`, from
 * --etcd-cafile, --etcd-certfile and --etcd-keyfile), or `redis://host:port[/db]`.
 */
export function storageFromFlag(flag: string, etcdTLS?: EtcdTLSOptions): Storage {
  if (flag === 'memory') return new MemoryStorage();
  if (flag.startsWith('etcd://') || flag.startsWith('etcds://')) {
    try {
      return new EtcdStorage({ ...parseEtcdURL(flag), ...(etcdTLS ? { tls: etcdTLS } : {}) });
    } catch (err) {
      throw new Error(`--storage: ${(err as Error).message}`);
    }
  }
  const url = URL.parse(flag);
  if (url?.protocol === 'redis:' || url?.protocol === 'rediss:') return new RedisStorage({ url: flag });
  // Several etcd members: etcd://host:port,host:port/prefix (parseEtcdURL's errors say what is wrong with one).
  throw new Error(`--storage must be memory, etcd://host:port, etcds://host:port or redis://host:port, not ${JSON.stringify(flag)}`);
}

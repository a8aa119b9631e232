import { MemoryStorage } from '@kapi/storage';
import { EtcdStorage } from '@kapi/storage-etcd';
import { describe, expect, it } from 'vitest';
import { storageFromFlag } from './storage-flag.ts';

describe('--storage', () => {
  it('memory, and etcd with one or several members (nothing is dialled until a request)', async () => {
    expect(storageFromFlag('memory')).toBeInstanceOf(MemoryStorage);
    for (const flag of ['etcd://127.0.0.1:2379/kapi', 'etcd://127.0.0.1:2379,127.0.0.2:2379,127.0.0.3/kapi']) {
      const s = storageFromFlag(flag);
      expect(s).toBeInstanceOf(EtcdStorage);
      await (s as EtcdStorage).close();
    }
  });

  it('bad etcd URLs are refused saying what is wrong', () => {
    expect(() => storageFromFlag('etcd://a:2379,,b:2379')).toThrow(
      '--storage: invalid etcd URL "etcd://a:2379,,b:2379": an empty host in the list (a stray comma?)',
    );
    expect(() => storageFromFlag('etcd://127.0.0.1:99999')).toThrow(/--storage: invalid etcd URL .*"99999" is not a port/);
    expect(() => storageFromFlag('bogus')).toThrow(
      '--storage must be memory, etcd://host:port, etcds://host:port or redis://host:port, not "bogus"',
    );
  });
});

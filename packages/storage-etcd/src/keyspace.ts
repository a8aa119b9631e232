/**
 * Maps storage keys to etcd keys under a prefix, and prefixes to etcd key ranges. The prefix lets several
 * independent stores (or test cases) share one etcd: "/tenant-a" + "/registry/widgets/ns/x".
 */
export class Keyspace {
  readonly prefix: string;

  /** `prefix` is used without a trailing slash (storage keys begin with one). */
  constructor(prefix = '') {
    this.prefix = prefix.replace(/\/+$/, '');
  }

  /** The etcd key of a storage key. */
  encode(key: string): Buffer {
    return Buffer.from(this.prefix + key, 'utf8');
  }

  /** The storage key of an etcd key in this keyspace. */
  decode(etcdKey: Buffer): string {
    return etcdKey.toString('utf8', Buffer.byteLength(this.prefix, 'utf8'));
  }
}

const NUL = Buffer.from([0]);

/**
 * The end (exclusive) of the etcd range holding every key that starts with `prefix`: the prefix with its last byte
 * below 0xff incremented and the rest dropped (etcd's GetPrefixRangeEnd). A prefix of only 0xff bytes (or none) has
 * no end; "\0" means "to the end of the keyspace" to etcd.
 */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const b = prefix[i] as number;
    if (b < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = b + 1;
      return end;
    }
  }
  return NUL;
}

/** The first key after `key` in etcd's byte order: `key` + "\0". */
export function keyAfter(key: Buffer): Buffer {
  return Buffer.concat([key, NUL]);
}

/**
 * Where a RedisStorage keeps its data: every Redis key starts with `<prefix>:`. The Lua scripts build the same
 * names from the same suffixes (see lua-scripts.ts), so this file is the one place the layout is written down.
 */
export const KEY_SUFFIXES = {
  /** STRING: the store-wide revision, INCR'd by every write. */
  rev: 'rev',
  /** STRING: the compaction revision; history below it is gone. */
  compacted: 'compacted',
  /** STRING: a random id written when the store is initialized; a different or missing one means the data was lost. */
  epoch: 'epoch',
  /** ZSET (all scores 0): the keys of live objects, in key order (ZRANGEBYLEX). */
  live: 'live',
  /** ZSET (all scores 0): every key with retained history (live, or deleted but not yet compacted). */
  all: 'all',
  /** STREAM: one entry per revision, id `<rev>-0`, fields k (key), v (new value; absent on delete), p (previous value). */
  log: 'log',
  /** ZSET: keys created with a TTL, scored by their deadline (Redis server time, ms). */
  ttl: 'ttl',
  /** ZSET per object (`<prefix>:o:<key>`): its versions, scored by revision, members `<rev>:<json>` (`<rev>:` = deleted). */
  object: 'o',
} as const;

export interface KeyLayout {
  readonly prefix: string;
  readonly rev: string;
  readonly compacted: string;
  readonly epoch: string;
  readonly live: string;
  readonly all: string;
  readonly log: string;
  readonly ttl: string;
  /** The version set of one storage key. */
  object(key: string): string;
}

export function keyLayout(prefix: string): KeyLayout {
  if (prefix === '') throw new Error('RedisStorage: prefix must not be empty');
  const k = (suffix: string) => `${prefix}:${suffix}`;
  return {
    prefix,
    rev: k(KEY_SUFFIXES.rev),
    compacted: k(KEY_SUFFIXES.compacted),
    epoch: k(KEY_SUFFIXES.epoch),
    live: k(KEY_SUFFIXES.live),
    all: k(KEY_SUFFIXES.all),
    log: k(KEY_SUFFIXES.log),
    ttl: k(KEY_SUFFIXES.ttl),
    object: (key) => `${prefix}:${KEY_SUFFIXES.object}:${key}`,
  };
}

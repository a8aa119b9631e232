export type { ChangeType } from './cache-event.ts';
export { Cacher, type CacherOptions } from './cacher.ts';
export {
  type EncodeListener,
  encodedEvent,
  encodedObject,
  encodingMemoBytes,
  onEncode,
  setEncodingMemoLimit,
} from './encoded-event.ts';
export type { EventHistoryOptions } from './event-history.ts';
export type { CacherMetrics, CacherStats } from './metrics.ts';
export type { BackoffOptions } from './reflector.ts';
export type { TimeBudgetOptions } from './time-budget.ts';
export type { Indexers, IndexFunc } from './watch-cache-store.ts';

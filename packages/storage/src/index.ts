export { committedEncodingOf, committedSizeOf, recordCommitted } from './committed-encoding.ts';
export { deepFreeze, jsonEqual, sameStoredObject } from './deep-equal.ts';
export { Fifo } from './fifo.ts';
export type {
  Compactable,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  Preconditions,
  ResourceVersionMatch,
  Storage,
  UpdateFunc,
  UpdateOptions,
  Watch,
  WatchOptions,
  WatchProgressRequester,
} from './interfaces.ts';
export { hasPromptWatchProgress, supports } from './interfaces.ts';
export { approximateJsonSize } from './json-size.ts';
export { nameOfKey, normalizeKey, prefixOf } from './keys.ts';
export { continueAfter, type ListPlan, listExpiredError, planList, resolveReadRevision } from './list-plan.ts';
export { type MemoryCompactionPolicy, MemoryStorage, type MemoryStorageOptions } from './memory/memory-storage.ts';
export { checkPreconditions } from './preconditions.ts';
export {
  type AttrFunc,
  defaultAttrs,
  matchesEverything,
  type ObjectAttributes,
  predicateMatches,
  type SelectionPredicate,
} from './selection-predicate.ts';
export { SortedMap } from './sorted-map.ts';
export {
  isStorageError,
  MESSAGES,
  StorageError,
  type StorageErrorCode,
  type StorageErrorDetails,
  storageErrors,
  watchStatusOf,
} from './storage-error.ts';
export { recordStorageKey, storageKeyOf } from './storage-key.ts';
export { bookmarkObject, lastStateAt, type StoredChange, watchEventFor } from './watch-event.ts';
export { WatchQueue, type WatchQueueOptions } from './watch-queue.ts';

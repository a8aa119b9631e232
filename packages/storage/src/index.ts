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
} from './interfaces.ts';
export {
  isStorageError,
  MESSAGES,
  StorageError,
  storageErrors,
  type StorageErrorCode,
  type StorageErrorDetails,
} from './storage-error.ts';
export {
  type AttrFunc,
  defaultAttrs,
  matchesEverything,
  type ObjectAttributes,
  predicateMatches,
  type SelectionPredicate,
} from './selection-predicate.ts';
export { nameOfKey, normalizeKey, prefixOf } from './keys.ts';
export { continueAfter, type ListPlan, planList, resolveReadRevision } from './list-plan.ts';
export { WatchQueue, type WatchQueueOptions } from './watch-queue.ts';
export { deepFreeze, jsonEqual, sameStoredObject } from './deep-equal.ts';
export { type MemoryCompactionPolicy, MemoryStorage, type MemoryStorageOptions } from './memory/memory-storage.ts';

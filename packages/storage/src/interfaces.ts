import type { KubeObject, ObjectList, WatchEvent } from '@kapi/apimachinery';
import type { SelectionPredicate } from './selection-predicate.ts';

/** Conditions a write checks against the current stored object; a mismatch is a Conflict. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** How a list or get's resourceVersion is interpreted (metav1.ResourceVersionMatch). */
export type ResourceVersionMatch = 'NotOlderThan' | 'Exact';

export interface CreateOptions {
  /** Remove the key after this many seconds; watchers see DELETED. */
  ttlSeconds?: number;
}

export interface GetOptions {
  /** "" = consistent read; "0" = any state; "N" = at least N (504 too large beyond the current revision). */
  resourceVersion?: string;
  /** Return null instead of throwing KeyNotFound. */
  ignoreNotFound?: boolean;
}

export interface ListOptions {
  /**
   * "" = a consistent read at the latest revision; "0" = any; "N" with NotOlderThan = at least N; "N" with Exact =
   * exactly at N, from history. Without a match, a recursive list with limit > 0 and N > 0 is Exact, else NotOlderThan.
   */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** Selectors, limit and continue. */
  predicate?: SelectionPredicate;
  /** List everything under `key/` (default), or only the object at `key` itself. */
  recursive?: boolean;
}

export interface WatchOptions {
  /** "" / "0": initial ADDED events for current objects, then changes. "N": every change after N, exclusive. */
  resourceVersion?: string;
  predicate?: SelectionPredicate;
  /** Watch everything under `key/` (default) or the single object at `key`. */
  recursive?: boolean;
  /** BOOKMARK events may be sent to this watcher (the end-of-initial-events bookmark needs this). */
  allowWatchBookmarks?: boolean;
  /** Emit BOOKMARK events carrying the latest revision while the watch is idle. */
  progressNotify?: boolean;
  /**
   * true: ADDED for every current object (at the start revision), then a BOOKMARK annotated
   * `k8s.io/initial-events-end` when bookmarks are allowed. false: no initial events, even from "" / "0".
   */
  sendInitialEvents?: boolean;
  /** Aborting ends the watch like stop(). */
  signal?: AbortSignal;
}

/**
 * A running watch. Iterate it for events; stop() (or return() on the iterator, or aborting the signal) ends it
 * without an error. After an ERROR event the stream ends. Events are shared, frozen values: copy to mutate.
 */
export interface Watch extends AsyncIterable<WatchEvent> {
  stop(): void;
}

export interface UpdateOptions {
  preconditions?: Preconditions;
  /** When the key is missing, call tryUpdate with null and create what it returns (instead of KeyNotFound). */
  ignoreNotFound?: boolean;
  /** An object the caller believes is current (e.g. from a cache); used instead of a first read, re-checked on conflict. */
  cachedExisting?: KubeObject;
}

export interface DeleteOptions {
  preconditions?: Preconditions;
  /** Called with the fresh stored object before deleting; throwing keeps the object. */
  validateDeletion?: (current: KubeObject) => void | Promise<void>;
  cachedExisting?: KubeObject;
}

/** A function that computes the new object from the current one (null when creating under ignoreNotFound). */
export type UpdateFunc = (current: KubeObject | null) => KubeObject | Promise<KubeObject>;

/**
 * The storage contract every backend implements (memory, etcd, Redis, and the watch cache in front of them),
 * following k8s.io/apiserver's storage.Interface. Keys look like `/registry/<group>/<resource>/<ns>/<name>`.
 *
 * Revisions: one store-wide revision grows with every write to any key. An object's resourceVersion is the
 * revision of its last write; a list's is the store's revision at read time.
 *
 * Errors: `StorageError` with a code (KeyNotFound, KeyExists, Conflict, InvalidObject, Unreachable, Expired,
 * TooLargeResourceVersion, InvalidKey), or a 400 `StatusError` for malformed input (resourceVersion, continue token,
 * resourceVersionMatch).
 *
 * Keys of returned objects: every object a backend returns — from create, get, list (every item), guaranteedUpdate
 * and delete, and in ADDED, MODIFIED and DELETED watch events (not BOOKMARK or ERROR) — has its storage key recorded,
 * normalized as `normalizeKey` gives it: `storageKeyOf(obj)`. Layers in front of a backend (a watch cache) rely on it,
 * since keys need not be derivable from objects; a layer that copies an object records the key on the copy
 * (`lastStateAt` does).
 */
export interface Storage {
  /**
   * Stores `obj` at `key`, which must not exist (KeyExists). `obj.metadata.resourceVersion` must be unset.
   * Returns a copy with metadata.resourceVersion set to the write's revision.
   */
  create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject>;

  /** The object at `key`. Missing: KeyNotFound, or null with ignoreNotFound. */
  get(key: string, opts?: GetOptions): Promise<KubeObject | null>;

  /**
   * Objects under `key` (recursive: `key/`, so `/x/foo` never lists `/x/foobar`), in key order, filtered by the
   * predicate. With a limit, pages through one snapshot: `continue` is set while keys remain in the range (even if
   * none match), every page reads at the first page's revision, `remainingItemCount` is set when there is no selector.
   */
  list(key: string, opts?: ListOptions): Promise<ObjectList>;

  /**
   * Read-modify-write with optimistic concurrency: reads `key`, checks preconditions (Conflict), calls tryUpdate,
   * and writes if the stored object is unchanged since the read; on a concurrent write it reads again and calls
   * tryUpdate again. A tryUpdate that returns an object equal to the stored one writes nothing and keeps its
   * resourceVersion. Missing key: KeyNotFound unless ignoreNotFound, which creates. Errors thrown by tryUpdate
   * propagate (after re-checking against a fresh read when cachedExisting was stale).
   */
  guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts?: UpdateOptions): Promise<KubeObject>;

  /**
   * Deletes `key` after checking preconditions and validateDeletion against the fresh object. Returns the last
   * stored state with the deletion's revision as its resourceVersion. Missing: KeyNotFound.
   */
  delete(key: string, opts?: DeleteOptions): Promise<KubeObject>;

  /**
   * Changes under `key` after opts.resourceVersion, in revision order, exactly once each. With a predicate, an
   * object that starts matching arrives as ADDED and one that stops matching as DELETED (the old object at the new
   * revision). A compacted start revision yields one ERROR event (410 Expired) and the end of the stream.
   */
  watch(key: string, opts?: WatchOptions): Watch;

  /** How many objects are stored under `key`. */
  count(key: string): Promise<number>;

  /** The store's current revision, cheaply (no object is read). */
  currentResourceVersion(): Promise<string>;

  /** Stops timers and ends all watches. */
  close(): Promise<void>;
}

/** Backends that keep history can drop revisions below `revision`; reads at or above it stay possible. */
export interface Compactable {
  compact(revision: number): Promise<void>;
}

/**
 * Backends that can be asked for a progress notification now (k8s' RequestWatchProgress): every open watch that asked
 * for `progressNotify` soon receives a BOOKMARK carrying a revision at least as new as the store's revision when the
 * request was made, after every event up to it. A watch cache uses it to catch up quickly for a consistent read.
 */
export interface WatchProgressRequester {
  requestWatchProgress(): Promise<void>;
  /**
   * The BOOKMARK a request asks for comes promptly — about one backend round trip, ordered after every event up to
   * the revision asked at — rather than on a timer. kube-apiserver serves consistent reads from its watch cache only
   * over such a backend (RequestWatchProgress: etcd ≥ 3.4.31 / 3.5.13); a cache in front of any other reads them from
   * the backend. It may change once: false while the backend has not found out yet (etcd asks its servers' versions
   * at start). Absent means false.
   */
  readonly promptWatchProgress?: boolean;
}

/** Whether a cache in front of `s` may serve consistent reads itself: `s` confirms freshness on request promptly. */
export function hasPromptWatchProgress(s: Storage): boolean {
  return supports(s, 'requestWatchProgress') && s.promptWatchProgress === true;
}

/** Whether `s` offers an optional capability (e.g. `supports(storage, 'compact')`). */
export function supports<K extends 'compact' | 'requestWatchProgress'>(
  s: Storage,
  method: K,
): s is Storage & (K extends 'compact' ? Compactable : WatchProgressRequester) {
  return typeof (s as unknown as Record<string, unknown>)[method] === 'function';
}

export type { SelectionPredicate };

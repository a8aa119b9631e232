import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { lastStateAt } from '@kapi/storage';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * One change applied to the cache, as its history keeps it: the new state, the state it replaced, and the watch
 * events watchers see for it. Each event is built once and shared by every watcher that sees it (and so are its
 * encoded bytes).
 */
export class CacheEvent {
  readonly type: ChangeType;
  readonly key: string;
  readonly rev: number;
  /** The object after the change; null when the key was deleted. */
  readonly obj: KubeObject | null;
  /** The cache's object before the change; null when the key was created. */
  readonly prev: KubeObject | null;
  /** A delete: the last state at `rev`, as the backend sent it. */
  readonly deleted: KubeObject | null;
  /** When the cache recorded it (the history's age-based sizing reads this). */
  readonly recordTime: number;
  #added: WatchEvent | undefined;
  #modified: WatchEvent | undefined;
  #gone: WatchEvent | undefined;

  constructor(
    type: ChangeType,
    key: string,
    rev: number,
    change: { obj: KubeObject | null; prev: KubeObject | null; deleted?: KubeObject | null },
    recordTime: number,
  ) {
    this.type = type;
    this.key = key;
    this.rev = rev;
    this.obj = change.obj;
    this.prev = change.prev;
    this.deleted = change.deleted ?? null;
    this.recordTime = recordTime;
  }

  /**
   * What a watcher whose selector is `matches` sees (watchEventFor's rules): ADDED when the object starts to match,
   * MODIFIED while it keeps matching, DELETED with the old object at this revision when it stops matching or is
   * deleted, nothing when it never matched.
   */
  viewFor(matches: (obj: KubeObject) => boolean): WatchEvent | undefined {
    const before = this.prev ?? this.deleted;
    const cur = this.obj !== null && matches(this.obj);
    const was = before !== null && matches(before);
    if (cur) return was ? this.#modifiedEvent() : this.#addedEvent();
    if (was) return this.#goneEvent();
    return undefined;
  }

  #addedEvent(): WatchEvent {
    this.#added ??= Object.freeze({ type: 'ADDED', object: this.obj as KubeObject });
    return this.#added;
  }

  #modifiedEvent(): WatchEvent {
    this.#modified ??= Object.freeze({ type: 'MODIFIED', object: this.obj as KubeObject });
    return this.#modified;
  }

  #goneEvent(): WatchEvent {
    if (!this.#gone) {
      // A real delete carries what the backend sent; a selector transition the old object at this revision.
      const object = this.obj === null && this.deleted ? this.deleted : lastStateAt((this.prev ?? this.deleted) as KubeObject, this.rev);
      this.#gone = Object.freeze({ type: 'DELETED', object });
    }
    return this.#gone;
  }
}

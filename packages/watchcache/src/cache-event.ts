import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { lastStateAt } from '@kapi/storage';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * One change applied to the cache, as its history keeps it: the new state, the state it replaced, and the watch
 * events watchers see for it. Each event is built once and shared by every watcher that sees it (and so are its
 * encoded bytes).
 */
export class CacheEvent {
  readonly key: string;
  readonly rev: number;
  /** The object after the change; null when the key was deleted. */
  readonly obj: KubeObject | null;
  /** The cache's object before the change; null when the key was created. */
  readonly prev: KubeObject | null;
  /** A delete: the last state at `rev`, as the backend sent it. */
  readonly deleted: KubeObject | null;
  /**
   * The watch event of the change's own type, built once for the watchers that see it together (a dispatch, watches
   * resumed at the same time). One slot, not one per type, and emptied after a dispatch (`forgetView`): the history
   * keeps every event for a while, and a selector's transition (ADDED or DELETED for a change that is a MODIFIED)
   * concerns few watchers.
   */
  #view: WatchEvent | undefined;

  constructor(
    type: ChangeType,
    key: string,
    rev: number,
    change: { obj: KubeObject | null; prev: KubeObject | null; deleted?: KubeObject | null },
  ) {
    this.key = key;
    this.rev = rev;
    // The type is kept in which states are present (see `type`), not in a field of its own.
    this.obj = type === 'DELETED' ? null : change.obj;
    this.prev = type === 'ADDED' ? null : change.prev;
    this.deleted = change.deleted ?? null;
    if (this.type !== type)
      throw new Error(`a ${type} change with ${this.obj ? 'an' : 'no'} object and ${this.prev ? 'a' : 'no'} previous one`);
  }

  get type(): ChangeType {
    return this.obj === null ? 'DELETED' : this.prev === null ? 'ADDED' : 'MODIFIED';
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
    if (cur) return this.#eventOf(was ? 'MODIFIED' : 'ADDED');
    if (was) return this.#eventOf('DELETED');
    return undefined;
  }

  /**
   * Lets the memoized watch event go once every watcher of the moment has it (their queues hold it, and its encoding
   * while the memo keeps that): a watch resumed later from the history builds its own.
   */
  forgetView(): void {
    this.#view = undefined;
  }

  #eventOf(type: ChangeType): WatchEvent {
    if (this.#view?.type === type) return this.#view;
    let object: KubeObject;
    if (type !== 'DELETED') object = this.obj as KubeObject;
    // A real delete carries what the backend sent; a selector transition the old object at this revision.
    else object = this.obj === null && this.deleted ? this.deleted : lastStateAt((this.prev ?? this.deleted) as KubeObject, this.rev);
    const view: WatchEvent = Object.freeze({ type, object });
    if (type === this.type) this.#view = view;
    return view;
  }
}

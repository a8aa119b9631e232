import type { Clock, KubeObject } from '@kapi/apimachinery';
import type { Store } from '../store/store.ts';

export interface ListAndWatchOptions {
  /** Each listed object (as ADDED) and each watch event. */
  onEvent: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject) => unknown;
  /** After each list's objects were handed on, with them (a relist may have missed deletions: they are all there is). */
  onList?: (items: readonly KubeObject[]) => Promise<void> | void;
  signal: AbortSignal;
  clock: Clock;
  /** The pause before listing again after a failed list or watch. */
  retryAfterMs: number;
  /** Told of every failed list or watch; it is tried again. */
  onError: (err: unknown) => void;
}

/** What listAndWatch reads: a Store, or anything that lists and watches like one. */
export type ListWatchSource = Pick<Store, 'list' | 'watch'>;

/** A controller's informer: list, then watch from the list's resourceVersion; any end of the watch starts over (after a pause if it failed), until `signal` aborts. */
export async function listAndWatch(store: ListWatchSource, options: ListAndWatchOptions): Promise<void> {
  const { onEvent, onList, signal } = options;
  while (!signal.aborted) {
    try {
      const list = await store.list({});
      for (const obj of list.items) onEvent('ADDED', obj);
      await onList?.(list.items);
      const watch = store.watch({}, { resourceVersion: list.metadata.resourceVersion ?? '', signal });
      for await (const ev of watch) {
        if (signal.aborted) break;
        // An expired or failed watch: list again.
        if (ev.type === 'ERROR') break;
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED') onEvent(ev.type, ev.object);
      }
    } catch (err) {
      if (signal.aborted) return;
      options.onError(err);
      await pause(options.clock, options.retryAfterMs, signal);
    }
  }
}

function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(done, ms);
    function done(): void {
      signal.removeEventListener('abort', cancel);
      resolve();
    }
    function cancel(): void {
      clock.clearTimeout(timer);
      done();
    }
    signal.addEventListener('abort', cancel);
  });
}

import type { Clock } from '@kapi/apimachinery';
import { listAndWatch, type Store } from '@kapi/registry';
import type { APIService } from '../apiservice/types.ts';

export interface APIServiceInformerOptions {
  signal: AbortSignal;
  clock: Clock;
  /** Told of every failed list or watch (it is tried again after a second). */
  onError: (err: unknown) => void;
  /** Each name whose entry in the view was set (`present`) or dropped (a DELETED event, or gone from a relist). */
  onChange: (name: string, present: boolean) => void;
  /** Once, after the first list was handed on, with the names it listed. */
  onFirstList?: (names: ReadonlySet<string>) => void;
}

/**
 * The aggregator controllers' informer: keeps `view` (APIServices by name) as `store` lists and watches them, a relist
 * dropping those it no longer holds, until `signal` aborts. Resolves once the first list is in.
 */
export function runAPIServiceInformer(
  store: Store<APIService>,
  view: Map<string, APIService>,
  options: APIServiceInformerOptions,
): Promise<void> {
  const { onChange, onFirstList } = options;
  let synced = false;
  return new Promise<void>((listed) => {
    void listAndWatch(store, {
      signal: options.signal,
      clock: options.clock,
      retryAfterMs: 1000,
      onError: options.onError,
      onEvent: (type, obj) => {
        const name = obj.metadata.name ?? '';
        if (type === 'DELETED') view.delete(name);
        else view.set(name, obj as APIService);
        onChange(name, type !== 'DELETED');
      },
      onList: (items) => {
        const names = new Set(items.map((o) => o.metadata.name ?? ''));
        for (const name of [...view.keys()])
          if (!names.has(name)) {
            view.delete(name);
            onChange(name, false);
          }
        if (synced) return;
        synced = true;
        onFirstList?.(names);
        listed();
      },
    });
  });
}

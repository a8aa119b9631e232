import type { KubeObject, Status, WatchEvent } from '@kapi/apimachinery';
import { isStorageError, type Watch } from '@kapi/storage';
import { readWatch } from '@kapi/storage/conformance';

// Shared by the tests that kill Redis connections or the redis-server itself: reading a watch that must never hang,
// and retrying while a reconnect is in progress.

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const brief = (e: WatchEvent) =>
  e.type === 'ERROR'
    ? `ERROR ${(e.object as Status).code}`
    : `${e.type} ${e.object.metadata.name ?? ''} ${e.object.metadata.resourceVersion}`;

/** Stops at the event for object `name`. */
export const named = (name: string) => (e: WatchEvent) => e.type !== 'ERROR' && (e.object as KubeObject).metadata.name === name;

/** Reads `watch` (skipping BOOKMARKs) until `done` accepts an event or it ends; fails after `ms`: a watch must never hang. */
export const collect = (watch: Watch, done: (e: WatchEvent) => boolean, ms = 10_000): Promise<{ events: WatchEvent[]; ended: boolean }> =>
  readWatch(watch, done, ms, brief);

/** Retries `op` while Redis is unreachable (a reconnect in progress). */
export async function whenReachable<T>(op: () => Promise<T>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (!isStorageError(err, 'Unreachable') || Date.now() > deadline) throw err;
      await sleep(25);
    }
  }
}

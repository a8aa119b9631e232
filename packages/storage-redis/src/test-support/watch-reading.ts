import type { KubeObject, Status, WatchEvent } from '@kapi/apimachinery';
import { isStorageError, type Watch } from '@kapi/storage';

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
export async function collect(
  watch: Watch,
  done: (e: WatchEvent) => boolean,
  ms = 10_000,
): Promise<{ events: WatchEvent[]; ended: boolean }> {
  const it = watch[Symbol.asyncIterator]();
  const events: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(1, deadline - Date.now()));
    });
    const r = await Promise.race([it.next(), timeout]);
    clearTimeout(timer);
    if (r === 'timeout') throw new Error(`watch hung after ${JSON.stringify(events.map(brief))}`);
    if (r.done) return { events, ended: true };
    if (r.value.type === 'BOOKMARK') continue;
    events.push(r.value);
    if (done(r.value)) return { events, ended: false };
  }
}

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

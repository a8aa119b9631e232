import type { WatchEvent } from '@kapi/apimachinery';
import type { Watch } from '../interfaces.ts';

/**
 * Reads `watch` (skipping BOOKMARKs) until `stop` accepts an event or the watch ends, failing after `ms` with the
 * last events read (`brief` names them): for tests that kill, pause or restart a backend, where a watch must never
 * hang. `ended`: the watch ended before `stop` accepted anything.
 */
export async function readWatch(
  watch: Watch,
  stop: (e: WatchEvent) => boolean,
  ms: number,
  brief: (e: WatchEvent) => string = (e) => e.type,
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
    if (r === 'timeout') throw new Error(`watch hung after ${events.length} events: ${events.slice(-5).map(brief).join(', ')}`);
    if (r.done) return { events, ended: true };
    if (r.value.type === 'BOOKMARK') continue;
    events.push(r.value);
    if (stop(r.value)) return { events, ended: false };
  }
}

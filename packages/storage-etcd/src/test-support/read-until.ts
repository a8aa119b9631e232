import type { Status, WatchEvent } from '@kapi/apimachinery';
import type { Watch } from '@kapi/storage';

// Reading a watch in the tests that kill, pause or restart etcd members: it must never hang.

export const brief = (e: WatchEvent) =>
  e.type === 'ERROR' ? `ERROR ${(e.object as Status).code}` : `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`;

/** Reads events (skipping bookmarks) until `stop` accepts one, failing after `ms`. */
export async function readUntil(w: Watch, stop: (e: WatchEvent) => boolean, ms = 15_000): Promise<WatchEvent[]> {
  const it = w[Symbol.asyncIterator]();
  const out: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), Math.max(1, deadline - Date.now()));
    });
    const r = await Promise.race([it.next(), timeout]);
    clearTimeout(timer);
    if (r === 'timeout') throw new Error(`watch stalled after ${out.length} events: ${out.slice(-3).map(brief).join(', ')}`);
    if (r.done) return out;
    if (r.value.type === 'BOOKMARK') continue;
    out.push(r.value);
    if (stop(r.value)) return out;
  }
}

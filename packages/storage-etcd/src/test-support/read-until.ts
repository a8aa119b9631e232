import type { Status, WatchEvent } from '@kapi/apimachinery';
import type { Watch } from '@kapi/storage';
import { readWatch } from '@kapi/storage/conformance';

// Reading a watch in the tests that kill, pause or restart etcd members: it must never hang.

export const brief = (e: WatchEvent) =>
  e.type === 'ERROR' ? `ERROR ${(e.object as Status).code}` : `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`;

/** Reads events (skipping bookmarks) until `stop` accepts one, failing after `ms`. */
export const readUntil = async (w: Watch, stop: (e: WatchEvent) => boolean, ms = 15_000): Promise<WatchEvent[]> =>
  (await readWatch(w, stop, ms, brief)).events;

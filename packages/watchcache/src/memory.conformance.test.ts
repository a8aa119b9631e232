import { FakeClock } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { runStorageConformance } from '@kapi/storage/conformance';
import { Cacher } from './cacher.ts';

/** Reads beyond the backend's revision give up after this instead of kube-apiserver's 3 s (cacher.test.ts checks 3 s). */
const FRESHNESS_MS = 500;

// MemoryStorage keeps time on a fake clock (TTLs, its progress notifications); the Cacher runs on real time so its
// waits end by themselves, with bookmarks often enough for the suite's progress case.
runStorageConformance(
  'Cacher over MemoryStorage',
  async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock, progressNotifyIntervalMs: 100 });
    const resourcePrefix = '/registry/widgets';
    const cacher = new Cacher({ storage, resourcePrefix, bookmarkIntervalMs: 100, freshnessTimeoutMs: FRESHNESS_MS });
    await cacher.ready();
    return {
      storage: cacher,
      resourcePrefix,
      compact: async (rev) => {
        // A real compactor compacts revisions minutes old: let the cache see `rev` first, so compaction does not race
        // the cache's own backend watch (cacher.test.ts covers compaction past the cache).
        await cacher.list(resourcePrefix, { resourceVersion: String(rev), resourceVersionMatch: 'NotOlderThan' }).catch(() => {});
        await storage.compact(rev);
      },
      elapse: async (ms) => {
        clock.advance(ms);
        await new Promise((r) => setImmediate(r));
      },
      close: async () => {
        await cacher.close();
        await storage.close();
      },
    };
  },
  { cache: true },
);

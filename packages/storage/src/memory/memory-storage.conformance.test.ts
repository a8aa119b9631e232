import { FakeClock } from '@kapi/apimachinery';
import { runStorageConformance } from '../conformance/index.ts';
import { MemoryStorage } from './memory-storage.ts';

runStorageConformance('MemoryStorage', async () => {
  const clock = new FakeClock();
  const storage = new MemoryStorage({ clock, progressNotifyIntervalMs: 100 });
  return {
    storage,
    resourcePrefix: '/registry/widgets',
    compact: (rev) => storage.compact(rev),
    elapse: async (ms) => {
      clock.advance(ms);
      await new Promise((r) => setImmediate(r));
    },
    close: () => storage.close(),
  };
});

import type { MemoryStorage, Storage } from '@kapi/storage';
import { Cacher } from '@kapi/watchcache';

/**
 * Dev-only (excluded from the build): the two backends registry suites run over — MemoryStorage directly, and through a
 * watch cache (Cacher) in front of it — for `describe.each(backends)`.
 */
export const backends: [
  string,
  (backend: MemoryStorage, resourcePrefix: string) => Promise<{ storage: Storage; close(): Promise<void> }>,
][] = [
  ['MemoryStorage', async (storage) => ({ storage, close: async () => {} })],
  [
    'Cacher',
    async (backend, resourcePrefix) => {
      const storage = new Cacher({ storage: backend, resourcePrefix });
      await storage.ready();
      return { storage, close: () => storage.close() };
    },
  ],
];

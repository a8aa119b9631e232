import type { Compactable, Storage } from '@kapi/storage';
import { type ConformanceOptions, runStorageConformance } from '@kapi/storage/conformance';
import { expect } from 'vitest';
import { Cacher } from '../cacher.ts';

/** Reads beyond the backend's revision give up after this instead of kube-apiserver's 3 s (cacher.test.ts checks 3 s). */
const FRESHNESS_MS = 500;

/** One case's backend: a fresh Storage, the prefix the suite writes under, and how time passes for it. */
export interface BackendUnderCache {
  storage: Storage & Compactable;
  resourcePrefix: string;
  /** Default: a real sleep. */
  elapse?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Dev-only (excluded from the build): the shared storage conformance suite through a Cacher in front of a fresh backend
 * per case. The Cacher runs on real time so its waits end by themselves, with bookmarks often enough for the suite's
 * progress case.
 */
export function runCacherConformance(name: string, backend: () => BackendUnderCache, options: ConformanceOptions = {}): void {
  runStorageConformance(
    name,
    async () => {
      const { storage, resourcePrefix, elapse } = backend();
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
        elapse: elapse ?? sleep,
        close: async () => {
          await cacher.close();
          await storage.close();
        },
      };
    },
    { cache: true, ...options },
  );
}

/** A consistent read right after a write returns that write, whether it went through the cache or behind its back. */
export async function checkConsistentReadAfterWrite(storage: Storage, resourcePrefix: string): Promise<void> {
  const cacher = new Cacher({ storage, resourcePrefix });
  try {
    await cacher.ready();
    const widget = (name: string) => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name, namespace: 'ns' } });
    for (let i = 0; i < 20; i++) {
      const via = i % 2 === 0 ? cacher : storage;
      const created = await via.create(`${resourcePrefix}/ns/w${i}`, widget(`w${i}`));
      const l = await cacher.list(resourcePrefix, { resourceVersion: '' });
      expect(l.items).toHaveLength(i + 1);
      expect(l.items.find((o) => o.metadata.name === `w${i}`)).toEqual(created);
      expect(l.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    }
    expect(cacher.stats().consistentReadFallbacks).toBe(0);
  } finally {
    await cacher.close();
    await storage.close();
  }
}

import type { GenericAPIServer } from '@kapi/server-core';

/**
 * The resources whose watch cache let a consistent read (a GET or LIST without resourceVersion) wait out the freshness
 * timeout before reading the backend, with how many did; `{}` when none did. Such a read costs seconds instead of one
 * backend round trip (issue 10: every read of a quiet kind on etcd 3.4 took 3 s), so the end-to-end suites assert `{}`
 * after their run: it catches the slow path by behaviour, not by timing.
 */
export function consistentReadFallbacks(server: GenericAPIServer): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [resource, stats] of server.watchCacheStats())
    if (stats.consistentReadFallbacks > 0) out[resource] = stats.consistentReadFallbacks;
  return out;
}

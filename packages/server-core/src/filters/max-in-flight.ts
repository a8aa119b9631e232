import { newTooManyRequests } from '@kapi/apimachinery';
import type { Filter } from './context.ts';
import { writeStatus } from './write-status.ts';

export interface MaxInFlightOptions {
  /** Concurrent POST/PUT/PATCH/DELETE requests; 0 = unlimited. Default 200 as kube. */
  maxMutating?: number;
  /** Concurrent other requests; 0 = unlimited. Default 400 as kube. */
  maxReadOnly?: number;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** kube's message for a request turned away by the in-flight limit. */
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

/**
 * Caps concurrent requests in two pools, as kube's maxinflight.go. Long-running requests
 * (watches) are not counted: they'd hold a slot for their whole lifetime.
 */
export function withMaxInFlightLimit(opts: MaxInFlightOptions = {}): Filter & { inFlight(): { mutating: number; readOnly: number } } {
  const limits = { mutating: opts.maxMutating ?? 200, readOnly: opts.maxReadOnly ?? 400 };
  const counts = { mutating: 0, readOnly: 0 };
  const filter: Filter = async (ctx, next) => {
    if (ctx.longRunning) return next();
    const pool = MUTATING.has(ctx.req.method ?? '') ? 'mutating' : 'readOnly';
    const limit = limits[pool];
    if (limit > 0 && counts[pool] >= limit) {
      writeStatus(ctx.res, newTooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1));
      return;
    }
    counts[pool]++;
    try {
      await next();
    } finally {
      counts[pool]--;
    }
  };
  return Object.assign(filter, { inFlight: () => ({ ...counts }) });
}

import type { ServerResponse } from 'node:http';
import { type Clock, newTimeout, realClock } from '@kapi/apimachinery';
import type { Filter } from './context.ts';
import { writeStatus } from './write-status.ts';

export interface TimeoutOptions {
  /** Default 60 s, kube's --request-timeout. */
  timeoutMs?: number;
  clock?: Clock;
  /** Called with an error the handler throws after its request already timed out. */
  onLateError?: (err: unknown) => void;
}

/** kube's message, after the "Timeout: " prefix newTimeout adds. */
export const TIMEOUT_MESSAGE = 'request did not complete within the allotted timeout';

const GUARDED = ['writeHead', 'setHeader', 'appendHeader', 'removeHeader', 'setHeaders', 'write', 'end', 'flushHeaders'] as const;
type Method = (...args: unknown[]) => unknown;

/**
 * Gives a non-long-running request `timeoutMs` to finish; past it the client gets 504 and
 * anything the handler writes later is dropped (kube's timeoutWriter). If the handler had already
 * started the response, the connection is cut instead, since a Status can no longer be sent.
 */
export function withTimeout(opts: TimeoutOptions = {}): Filter {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const clock = opts.clock ?? realClock;
  return async (ctx, next) => {
    if (ctx.longRunning || timeoutMs <= 0) return next();
    const res = ctx.res;
    const work = next();
    // One timer and one promise per request (every non-watch request passes here): settled by whichever comes first.
    const timedOut = await new Promise<boolean>((resolve, reject) => {
      let settled = false;
      const timer = clock.setTimeout(() => {
        if (settled) return;
        settled = true;
        resolve(true);
      }, timeoutMs);
      timer.unref?.();
      work.then(
        () => {
          if (settled) return;
          settled = true;
          clock.clearTimeout(timer);
          resolve(false);
        },
        (err: unknown) => {
          if (settled) return opts.onLateError?.(err);
          settled = true;
          clock.clearTimeout(timer);
          reject(err);
        },
      );
    });
    if (!timedOut) return;

    const state = { timedOut: true, own: false };
    // Guards go on only now (nothing needs them before): the handler keeps running, and what it writes is dropped.
    guardWrites(res, state);
    state.own = true;
    try {
      writeStatus(res, newTimeout(TIMEOUT_MESSAGE, 0));
    } finally {
      state.own = false;
    }
  };
}

/** Replaces the response's writing methods on this instance with ones that go quiet after the timeout. */
function guardWrites(res: ServerResponse, state: { timedOut: boolean; own: boolean }): void {
  const target = res as unknown as Record<string, Method>;
  for (const name of GUARDED) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function (this: ServerResponse, ...args: unknown[]): unknown {
      if (!state.timedOut || state.own) return original.apply(this, args);
      // Dropped; keep the handler's callbacks and drain waits from hanging.
      const cb = args.findLast((a) => typeof a === 'function') as ((err?: Error) => void) | undefined;
      if (cb && (name === 'write' || name === 'end')) queueMicrotask(() => cb());
      return name === 'write' ? true : this;
    };
  }
}

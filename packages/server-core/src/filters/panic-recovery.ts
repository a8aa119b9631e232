import { toStatusError } from '@kapi/apimachinery';
import type { Filter } from './context.ts';
import { writeStatus } from './write-status.ts';

export interface PanicRecoveryOptions {
  /** Called with anything that isn't a StatusError (kube logs these with the stack). */
  onPanic?: (err: unknown, method: string | undefined, url: string) => void;
}

/** Anything thrown below becomes a Status response: StatusErrors as themselves, the rest as 500 InternalError. */
export function withPanicRecovery(opts: PanicRecoveryOptions = {}): Filter {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const status = toStatusError(err);
      if (status !== err) opts.onPanic?.(err, ctx.req.method, ctx.url.pathname);
      writeStatus(ctx.res, status);
    }
  };
}

import type { Filter } from './context.ts';

/**
 * Sets Strict-Transport-Security from directives such as ["max-age=31536000", "includeSubDomains", "preload"].
 * No directives → no filter behaviour, as kube's WithHSTS.
 */
export function withHsts(directives: readonly string[]): Filter {
  const value = directives.join('; ');
  return async (ctx, next) => {
    if (value) ctx.res.setHeader('Strict-Transport-Security', value);
    await next();
  };
}

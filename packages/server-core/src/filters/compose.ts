import type { Filter, Handler, RequestContext } from './context.ts';

/**
 * Chains filters around a handler, outermost first. Calling `next()` twice from one filter rejects,
 * since running the rest of the chain again would run the handler twice on one response.
 */
export function compose(filters: readonly Filter[], handler: Handler): Handler {
  const chain = [...filters];
  return (ctx: RequestContext) => {
    const dispatch = (i: number): Promise<void> => {
      if (i === chain.length) return handler(ctx);
      const filter = chain[i] as Filter;
      let called = false;
      return filter(ctx, () => {
        if (called) return Promise.reject(new Error('next() called multiple times'));
        called = true;
        return dispatch(i + 1);
      });
    };
    return dispatch(0);
  };
}

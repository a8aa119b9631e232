import { newBadRequest } from '@kapi/apimachinery';
import { type RequestInfo, RequestInfoError, RequestInfoResolver } from '../request-info.ts';
import type { Filter } from './context.ts';
import { writeStatus } from './write-status.ts';

/** kube's default long-running check: watches and proxies, and the streaming subresources. */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  return info.isResourceRequest && (LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

/**
 * Resolves ctx.requestInfo from the method and path (kube's WithRequestInfo) and marks long-running requests,
 * which max-in-flight and the request timeout leave alone. A path the resolver rejects (`/api/v1/watch`,
 * `/apis/g/v/proxy`: a verb with nothing after it) is the client's error: 400 BadRequest with kube's message, where
 * kube-apiserver answers 500.
 */
export function withRequestInfo(resolver: RequestInfoResolver = new RequestInfoResolver()): Filter {
  return async (ctx, next) => {
    let info: RequestInfo;
    try {
      info = resolver.resolve(ctx.req.method ?? 'GET', ctx.req.url ?? '/');
    } catch (err) {
      if (!(err instanceof RequestInfoError)) throw err;
      writeStatus(ctx.res, newBadRequest(`failed to create RequestInfo: ${err.message}`));
      return;
    }
    ctx.requestInfo = info;
    if (isLongRunning(info)) ctx.longRunning = true;
    return next();
  };
}

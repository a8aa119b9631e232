import { TLSSocket } from 'node:tls';
import { newUnauthorized } from '@kapi/apimachinery';
import {
  ALL_UNAUTHENTICATED,
  ANONYMOUS_USER,
  type Authenticator,
  headersIn,
  type RequestHeaderNames,
  requestHeaderNames,
} from '@kapi/authn';
import type { AuthenticationMetrics } from '../metrics/authentication-metrics.ts';
import type { Filter } from './context.ts';
import { deleteRequestHeader } from './delete-header.ts';
import { writeStatus } from './write-status.ts';

export interface AuthenticationOptions {
  authenticator: Authenticator;
  /**
   * Requests with no credential any authenticator recognises become `system:anonymous` in
   * `system:unauthenticated` (kube's --anonymous-auth). Default false: they get 401.
   */
  anonymous?: boolean;
  /** Called with the error when an authenticator rejected a credential (kube logs it). */
  onError?: (err: unknown) => void;
  /**
   * The front proxy's header names (kube's --requestheader-*-headers), removed from every authenticated request
   * besides the standard X-Remote-User / X-Remote-Uid / X-Remote-Group / X-Remote-Extra-* (which always are).
   */
  requestHeaders?: RequestHeaderNames;
  /**
   * kube's --api-audiences: every credential must be good for one of them. Token authenticators are asked with them
   * (kube's WithAudiences) and a result naming only other audiences is refused. Default: no audience check.
   */
  apiAudiences?: readonly string[];
  /** Where attempts are counted and timed by result (GenericAPIServer passes its own). */
  metrics?: AuthenticationMetrics;
}

/** kube's message on the 401 Status. */
export const UNAUTHORIZED_MESSAGE = 'Unauthorized';

/**
 * kube's WithAuthentication: sets `ctx.user` from the authenticator, then drops the `Authorization` header
 * so nothing further down can reuse the credential. A rejected credential is a 401 even when anonymous
 * requests are allowed (kube puts anonymous behind a fail-on-error union); no credential at all is
 * anonymous when allowed, else 401. The 401 is kube's Status: reason Unauthorized, message "Unauthorized".
 */
export function withAuthentication(opts: AuthenticationOptions): Filter {
  const apiAudiences = opts.apiAudiences?.length ? [...opts.apiAudiences] : undefined;
  // The standard front-proxy headers, then the configured ones: built once, matched per request.
  const toClear = [requestHeaderNames(), ...(opts.requestHeaders ? [requestHeaderNames(opts.requestHeaders)] : [])];
  return async (ctx, next) => {
    const socket = ctx.req.socket instanceof TLSSocket ? ctx.req.socket : undefined;
    let result: Awaited<ReturnType<Authenticator['authenticate']>>;
    const started = performance.now();
    const observe = (label: 'success' | 'failure' | 'error', user?: string) =>
      opts.metrics?.observe(label, (performance.now() - started) / 1000, user);
    try {
      result = await opts.authenticator.authenticate({
        headers: ctx.req.headers,
        headersDistinct: ctx.req.headersDistinct,
        socket,
        audiences: apiAudiences,
      });
      // kube's audiencesAreAcceptable: a result that names audiences must share one with the API audiences.
      if (result && apiAudiences && result.audiences?.length && !result.audiences.some((a) => apiAudiences.includes(a)))
        throw new Error('token audiences do not match the API audiences');
    } catch (err) {
      observe('error');
      opts.onError?.(err);
      writeStatus(ctx.res, newUnauthorized(UNAUTHORIZED_MESSAGE));
      return;
    }
    if (!result && opts.anonymous) result = { user: { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] } };
    if (!result) {
      observe('failure');
      writeStatus(ctx.res, newUnauthorized(UNAUTHORIZED_MESSAGE));
      return;
    }
    observe('success', result.user.name);
    deleteRequestHeader(ctx.req, 'authorization');
    // kube's ClearAuthenticationHeaders: whoever authenticated, no later handler sees front-proxy identity headers.
    for (const set of toClear) for (const h of headersIn(ctx.req.headers, set)) deleteRequestHeader(ctx.req, h);
    ctx.user = result.user;
    await next();
  };
}

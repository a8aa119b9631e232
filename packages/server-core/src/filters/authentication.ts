import { TLSSocket } from 'node:tls';
import { newUnauthorized } from '@kapi/apimachinery';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type Authenticator } from '@kapi/authn';
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
  return async (ctx, next) => {
    const socket = ctx.req.socket instanceof TLSSocket ? ctx.req.socket : undefined;
    let result: Awaited<ReturnType<Authenticator['authenticate']>>;
    try {
      result = await opts.authenticator.authenticate({ headers: ctx.req.headers, socket });
    } catch (err) {
      opts.onError?.(err);
      writeStatus(ctx.res, newUnauthorized(UNAUTHORIZED_MESSAGE));
      return;
    }
    if (!result && opts.anonymous) result = { user: { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] } };
    if (!result) {
      writeStatus(ctx.res, newUnauthorized(UNAUTHORIZED_MESSAGE));
      return;
    }
    deleteRequestHeader(ctx.req, 'authorization');
    ctx.user = result.user;
    await next();
  };
}

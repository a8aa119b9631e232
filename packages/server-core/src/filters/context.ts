import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '@kapi/authn';
import type { RequestInfo } from '../request-info.ts';

/** Per-request state shared by the filters and the final handler. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** Set by the request-info filter. */
  requestInfo?: RequestInfo;
  /** Set by authentication (and replaced by impersonation). */
  user?: UserInfo;
  /** Warning texts for `Warning: 299` headers; add with `addWarning` to deduplicate. */
  warnings: string[];
  /** Watches and other streams: exempt from max-in-flight and the request timeout. */
  longRunning: boolean;
  /** Body size cap for `readRequestBody`, set by the body-limit filter. */
  maxRequestBodyBytes?: number;
  /** How much of a body left unread is drained after the response (drainUnreadBodyAfterResponse); set by the body-limit filter. */
  bodyDrain?: { readonly maxBytes: number; readonly maxMs: number };
  /** Anything else a filter wants to pass down. */
  readonly state: Map<string, unknown>;
}

export type Handler = (ctx: RequestContext) => Promise<void>;
export type Filter = (ctx: RequestContext, next: () => Promise<void>) => Promise<void>;

/** A fresh context for one request; the URL base is only a placeholder for parsing the path. */
export function createRequestContext(req: IncomingMessage, res: ServerResponse): RequestContext {
  return {
    req,
    res,
    url: requestURL(req.url ?? '/'),
    warnings: [],
    longRunning: false,
    state: new Map(),
  };
}

const PLACEHOLDER_ORIGIN = 'http://localhost';

/**
 * The request target as a URL. An origin-form target ("/path?query") is appended to the placeholder origin rather
 * than resolved against it: resolved, "//x/y" would be a scheme-relative URL naming host "x" (and "//" no URL at all).
 * Anything else node lets through (absolute-form, "*") is parsed as is, else taken as a path.
 */
function requestURL(target: string): URL {
  if (target.startsWith('/')) {
    const url = URL.parse(PLACEHOLDER_ORIGIN + target);
    if (url) return url;
  }
  return URL.parse(target) ?? URL.parse(`${PLACEHOLDER_ORIGIN}/${target}`) ?? new URL(`${PLACEHOLDER_ORIGIN}/`);
}

import { newRequestEntityTooLarge } from '@kapi/apimachinery';
import type { Filter, RequestContext } from './context.ts';

/** kube's default cap on a request body (3 MiB). */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

const tooLarge = (limit: number) => newRequestEntityTooLarge(`limit is ${limit}`);

export interface RequestBodyLimitOptions {
  /** The cap; default 3 MiB. */
  maxBytes?: number;
  /** How much of a refused body is still read (and discarded) after the 413 before the connection is cut; default 4 × maxBytes. */
  drainBytes?: number;
  /** How long that may take; default 5 s. */
  drainMs?: number;
}

/**
 * Sets the body cap `readRequestBody` enforces (a declared Content-Length over it is turned away before anything is
 * read). Only handlers that read the body apply it, as kube's limitedReadBody: a request the aggregator or the proxy
 * subresource forwards streams to its remote whatever its size, as kube's proxies do.
 */
export function withRequestBodyLimit(opts: RequestBodyLimitOptions = {}): Filter {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  const bodyDrain = { maxBytes: opts.drainBytes ?? 4 * maxBytes, maxMs: opts.drainMs ?? 5_000 };
  return async (ctx, next) => {
    ctx.maxRequestBodyBytes = maxBytes;
    ctx.bodyDrain = bodyDrain;
    await next();
  };
}

/**
 * Reads the whole body, failing with 413 as soon as it passes the cap, so an oversized (or
 * chunked, undeclared-length) body is never buffered in full; the rest is drained after the response.
 */
export function readRequestBody(
  ctx: RequestContext,
  maxBytes = ctx.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES,
): Promise<Buffer> {
  const req = ctx.req;
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  // kube's limitedReadBody: a declared length over the cap is refused unread; the body is drained after the 413 is
  // sent (drainUnreadBody), so the client reads the Status.
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

import { newRequestEntityTooLarge } from '@kapi/apimachinery';
import type { Filter, RequestContext } from './context.ts';

/** kube's default cap on a request body (3 MiB). */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

const tooLarge = (limit: number) => newRequestEntityTooLarge(`limit is ${limit}`);

/**
 * Sets the body cap `readRequestBody` enforces, and turns away a declared Content-Length over it
 * before anything is read.
 */
export function withRequestBodyLimit(opts: { maxBytes?: number } = {}): Filter {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  return async (ctx, next) => {
    ctx.maxRequestBodyBytes = maxBytes;
    const declared = Number(ctx.req.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      dropRest(ctx);
      throw tooLarge(maxBytes);
    }
    await next();
  };
}

/**
 * Reads the whole body, failing with 413 as soon as it passes the cap, so an oversized (or
 * chunked, undeclared-length) body is never buffered in full.
 */
export function readRequestBody(
  ctx: RequestContext,
  maxBytes = ctx.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES,
): Promise<Buffer> {
  const req = ctx.req;
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
        dropRest(ctx);
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

/** Discards the unread body and closes the connection after the response, as Go's MaxBytesReader does. */
function dropRest(ctx: RequestContext): void {
  if (!ctx.res.headersSent) ctx.res.setHeader('Connection', 'close');
  ctx.req.resume();
}

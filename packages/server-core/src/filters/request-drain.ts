import { constants, type Http2Stream } from 'node:http2';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from './body-limit.ts';
import type { RequestContext } from './context.ts';

/** How much of an unread request body is read and thrown away after the response, before the connection is cut. */
export interface DrainLimits {
  readonly maxBytes: number;
  readonly maxMs: number;
}

/** What the body-limit filter set, else a few times the body cap and a few seconds. */
export function drainLimitsFor(ctx: RequestContext): DrainLimits {
  return ctx.bodyDrain ?? { maxBytes: 4 * (ctx.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES), maxMs: 5_000 };
}

/**
 * Arranges for the rest of a request body the handler did not read to be drained once the response is complete.
 * A handler may answer before it has read the whole body (a 413 for an oversized body, a 401 or 405 that never looks
 * at it) while the client is still sending. Closing the connection at once makes the client's next write fail
 * (EPIPE, ECONNRESET) and may discard the response it has not read yet, so the rest of the body is read and
 * discarded first, bounded in bytes and time (`drainLimitsFor`):
 * - HTTP/1.1: keep reading; when the body ends the connection stays usable (or closes, if the response was its
 *   last); past the bounds the socket is destroyed (by then the client has had the response for a while).
 * - HTTP/2: the stream is reset with NO_ERROR, which RFC 9113 §8.1 defines as "stop sending, the response stands";
 *   the session and its other streams go on.
 * Call it once per request, before the response ends.
 */
export function drainUnreadBodyAfterResponse(ctx: RequestContext): void {
  const { req, res } = ctx;
  const stream = (req as { stream?: Http2Stream }).stream;
  if (stream) {
    res.once('finish', () => {
      if (!req.complete && !stream.closed && !stream.destroyed) stream.close(constants.NGHTTP2_NO_ERROR);
    });
    return;
  }
  // 'prefinish' comes before node's own 'finish' handling, which would otherwise dump the body unseen (no 'data'
  // events, so no count) or, for a connection's last response, destroy the socket as soon as its FIN is out.
  res.once('prefinish', () => {
    if (!req.complete && !req.destroyed) drainHTTP1(ctx, drainLimitsFor(ctx));
  });
}

function drainHTTP1(ctx: RequestContext, limits: DrainLimits): void {
  const { req, res } = ctx;
  const socket = req.socket;
  let lastResponse = false;
  let left = limits.maxBytes;
  let ended = false;
  const done = (): void => {
    ended = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', done);
    req.off('close', done);
    if (lastResponse) socket.destroy();
  };
  const cutOff = (): void => {
    done();
    socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    left -= chunk.length;
    if (left < 0) cutOff();
  };
  const timer = setTimeout(cutOff, limits.maxMs);
  timer.unref();
  req.on('data', onData);
  req.once('end', done);
  req.once('close', done);
  req.resume();
  // Registered after node's own listener: a response that ends the connection (the client sent `Connection: close`,
  // or the server is shutting down) has by then half-closed it, and node destroys the socket once its FIN is out,
  // which would reset the client mid-send. The read side stays open until the body is drained, as Go's server does
  // (closeWriteAndWait).
  res.once('finish', () => {
    if (ended || !socket.writableEnded) return;
    lastResponse = true;
    socket.removeListener('finish', socket.destroy);
  });
}

import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestContext } from '../filters/context.ts';

/**
 * HTTP/1.1 connection upgrades (websockets, SPDY: kubectl exec/attach/port-forward, and their proxying). node hands
 * an upgrade request to the server's 'upgrade' event with the raw connection instead of a response; serve() gives it
 * a ServerResponse bound to that connection so it runs through the same handler chain (authentication,
 * authorization, audit…) as any request. A handler that upgrades takes the connection with
 * {@link hijackConnection} (Go's http.Hijacker); any other answer is written as usual and the connection closes.
 */

const UPGRADE_KEY = 'kapi.upgrade';

interface UpgradeConnection {
  readonly socket: Duplex;
  /** Bytes the client sent after the request's head (the upgraded protocol's first bytes). */
  readonly head: Buffer;
  taken: boolean;
}

/** k8s.io/streaming's httpstream.IsUpgradeRequest: a Connection header that mentions `upgrade`. */
export function isUpgradeRequest(req: IncomingMessage): boolean {
  const connection = req.headersDistinct?.connection ?? [];
  return connection.some((v) => v.toLowerCase().includes('upgrade'));
}

/** The response serve() binds to an upgrade request's connection; it closes the connection once answered. */
export function upgradeResponse(req: IncomingMessage, socket: Duplex): ServerResponse {
  // node's server stops listening for the connection's errors when it hands it over.
  socket.on('error', () => socket.destroy());
  const res = new ServerResponse(req);
  // node's parser has let go of the connection: no second request can follow on it.
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once('finish', () => socket.end());
  return res;
}

/** For serve(): marks the context of an upgrade request (a long-running one, as kube's hijacked connections are). */
export function setUpgradeConnection(ctx: RequestContext, socket: Duplex, head: Buffer): void {
  ctx.longRunning = true;
  ctx.state.set(UPGRADE_KEY, { socket, head, taken: false } satisfies UpgradeConnection);
}

/**
 * Takes the raw connection of an upgrade request from its response (Go's Hijack): afterwards the handler owns the
 * socket and nothing the chain writes to `ctx.res` reaches the client. Undefined when the request did not come
 * through serve()'s upgrade path, was already taken, or has started its answer.
 */
export function hijackConnection(ctx: RequestContext): { socket: Duplex; head: Buffer } | undefined {
  const conn = ctx.state.get(UPGRADE_KEY) as UpgradeConnection | undefined;
  if (!conn || conn.taken || ctx.res.headersSent) return undefined;
  conn.taken = true;
  ctx.res.detachSocket(conn.socket as Socket);
  // Shutdown ends what is left in flight with res.destroy(): for a taken connection, the connection.
  const socket = conn.socket;
  ctx.res.destroy = (err?: Error) => {
    socket.destroy(err);
    return ctx.res;
  };
  // serve()'s in-flight tracking ends with the response's 'close': now the connection's.
  if (conn.socket.destroyed) queueMicrotask(() => ctx.res.emit('close'));
  else conn.socket.once('close', () => ctx.res.emit('close'));
  return { socket: conn.socket, head: conn.head };
}

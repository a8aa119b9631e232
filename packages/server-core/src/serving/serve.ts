import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer, Http2ServerRequest, Http2ServerResponse, type Http2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { CABundle } from '@kapi/authn';
import { answerClientError } from '../filters/client-error.ts';
import type { Handler, RequestContext } from '../filters/context.ts';
import { toRequestListener } from '../filters/serve.ts';
import { setUpgradeConnection, upgradeResponse } from './upgrade.ts';

export interface ServeOptions {
  /** 0 (default) = any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** PEM certificate (chain) and key; with it the server speaks TLS with ALPN h2 and http/1.1. */
  tls?: {
    cert: string | Buffer;
    key: string | Buffer;
    /**
     * CAs whose client certificates the server asks for (kube's --client-ca-file and --requestheader-client-ca-file):
     * the handshake requests a client certificate and names these CAs as acceptable (Go clients send only a
     * certificate from one of them), but never refuses a connection without one or with a bad one — tokens work on
     * the same port, and the authenticators verify certificates. A bundle that changes updates the handshake.
     */
    clientCA?: CABundle | readonly CABundle[];
  };
}

export interface ShutdownOptions {
  /** How long in-flight non-long-running requests may take to finish; default 60 s. */
  gracePeriodMs?: number;
}

export interface Serving {
  /** e.g. https://127.0.0.1:34567 */
  readonly url: string;
  readonly server: Server | Http2SecureServer;
  /** Aborted when shutdown starts ending long-running requests; a watch handler can stop on it. */
  readonly longRunningSignal: AbortSignal;
  /** Requests whose response has not finished yet. */
  inFlight(): ReadonlySet<RequestContext>;
  /** Registers a cleanup run at the end of shutdown, after every connection closed (e.g. close storage). */
  onShutdown(cleanup: () => void | Promise<void>): void;
  /** Graceful shutdown (see {@link serve}); calling it again returns the same promise. */
  shutdown(options?: ShutdownOptions): Promise<void>;
}

/**
 * node:http's request has `headersDistinct` (every value a list), which filters read (audit, impersonation); the
 * HTTP/2 compatibility request lacks it. Given here once, at the one place HTTP/2 requests enter the chain.
 * HTTP/2 carries repeated fields as arrays or, for most names, joined by node with ", ".
 */
class Http2Request extends Http2ServerRequest {
  get headersDistinct(): NodeJS.Dict<string[]> {
    const out: NodeJS.Dict<string[]> = {};
    for (const [name, value] of Object.entries(this.headers)) {
      if (value === undefined || name.startsWith(':')) continue;
      out[name] = Array.isArray(value) ? value : [value];
    }
    return out;
  }
}

// Connection-specific fields, which HTTP/2 forbids (RFC 9113 §8.2.2).
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/**
 * The HTTP/2 response drops connection-specific headers quietly, so the chain can say `Connection: close` whatever
 * the protocol (node would warn and drop them); over HTTP/2 only the stream ends, the session stays.
 */
class Http2Response extends Http2ServerResponse {
  override setHeader(name: string, value: number | string | readonly string[]): void {
    if (!CONNECTION_HEADERS.has(name.toLowerCase())) super.setHeader(name, value);
  }
}

/** Write methods silenced on a response that shutdown ended under a still-running handler. */
const GUARDED = ['writeHead', 'setHeader', 'appendHeader', 'removeHeader', 'setHeaders', 'write', 'end', 'flushHeaders'] as const;

/**
 * Serves a (composed) handler. With `tls`, one port speaks HTTP/2 (what kubectl and client-go negotiate) and
 * HTTP/1.1 via ALPN; without, plain HTTP/1.1.
 *
 * The handler chain is typed against node:http; over HTTP/2 it receives node's compatibility objects
 * (Http2ServerRequest/Http2ServerResponse), which offer the same members the filters use (method, url,
 * headers, statusCode, setHeader, writeHead, write, end, headersSent, writableEnded, destroy, 'finish' and
 * 'close' events). Hop-by-hop headers like `Connection` are dropped by node on HTTP/2.
 *
 * `shutdown` follows kube's order (http.Server.Shutdown plus the watch termination):
 * 1. stop accepting connections; idle keep-alive connections close; HTTP/2 sessions get GOAWAY, so clients
 *    open no new streams on them while open streams go on. A request that still arrives on an open HTTP/1.1
 *    connection is served, with `Connection: close`.
 * 2. wait up to `gracePeriodMs` for in-flight non-long-running requests.
 * 3. abort `longRunningSignal`, then end every long-running response that is still open: one already
 *    streaming is ended cleanly (final chunk / END_STREAM, so a watcher sees the end of the stream rather
 *    than a reset) and any later writes of its handler are dropped; anything else left is reset.
 * 4. close the remaining connections and sessions, then run the `onShutdown` cleanups.
 */
export async function serve(handler: Handler, options: ServeOptions = {}): Promise<Serving> {
  const host = options.host ?? '127.0.0.1';
  const inflight = new Set<RequestContext>();
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  const cleanups: Array<() => void | Promise<void>> = [];
  const longRunning = new AbortController();
  const waiters = new Set<() => void>();
  let shuttingDown = false;
  let shutdownPromise: Promise<void> | undefined;

  const tracked: Handler = (ctx) => {
    inflight.add(ctx);
    const done = (): void => {
      if (!inflight.delete(ctx)) return;
      for (const w of waiters) w();
    };
    ctx.res.once('finish', done);
    ctx.res.once('close', done);
    if (shuttingDown) ctx.res.setHeader('Connection', 'close');
    return handler(ctx);
  };
  const listener = toRequestListener(tracked);
  // HTTP/1.1 upgrade requests come without a response: they get one bound to their connection and run through the
  // same chain, where a proxy may take the connection (hijackConnection); other requests never come this way.
  const upgrades = new WeakMap<IncomingMessage, { socket: Duplex; head: Buffer }>();
  const upgradeListener = toRequestListener((ctx) => {
    const upgrade = upgrades.get(ctx.req);
    if (upgrade) setUpgradeConnection(ctx, upgrade.socket, upgrade.head);
    return tracked(ctx);
  });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    upgrades.set(req, { socket, head });
    upgradeListener(req, upgradeResponse(req, socket));
  };
  // node hands an HTTP/1.1 CONNECT to 'connect' with the raw connection too and, with no listener, drops it
  // unanswered; Go's server passes it to the handler, so it runs through the chain as an ordinary request (kube
  // answers it with a Status, e.g. 405) on a response bound to that connection, which then closes.
  const onConnect = (req: IncomingMessage, socket: Duplex): void => listener(req, upgradeResponse(req, socket));

  let server: Server | Http2SecureServer;
  if (options.tls) {
    const { cert, key } = options.tls;
    const clientCAs = options.tls.clientCA === undefined ? [] : ([options.tls.clientCA].flat() as CABundle[]);
    const acceptableCAs = (): string => clientCAs.map((b) => b.pem()).join('');
    const secure = createSecureServer({
      cert,
      key,
      // kube's tls.RequestClientCert: ask, never require (rejectUnauthorized false); verification is authentication's.
      ...(clientCAs.length ? { requestCert: true, rejectUnauthorized: false, ca: acceptableCAs() } : {}),
      allowHTTP1: true,
      ALPNProtocols: ['h2', 'http/1.1'],
      Http2ServerRequest: Http2Request,
      // The options type ties the response class to the default request class.
      Http2ServerResponse: Http2Response as unknown as typeof Http2ServerResponse,
    });
    // The compat objects stand in for node:http's at this one boundary (see the doc comment).
    secure.on('request', (req: Http2ServerRequest | IncomingMessage, res: Http2ServerResponse | ServerResponse) =>
      listener(req as IncomingMessage, res as ServerResponse),
    );
    secure.on('secureConnection', (socket: Socket) => trackSocket(socket));
    secure.on('upgrade', onUpgrade);
    secure.on('connect', onConnect);
    // New connections advertise the reloaded CAs; established ones keep what they negotiated.
    const unsubscribe = clientCAs.map((b) => b.onChange(() => secure.setSecureContext({ cert, key, ca: acceptableCAs() })));
    secure.once('close', () => {
      for (const off of unsubscribe) off();
    });
    // Its HTTP/1.1 connections report unparsable requests here as node:http's do.
    secure.on('clientError', answerClientError);
    secure.on('session', (session: Http2Session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
      if (shuttingDown) session.close();
    });
    server = secure;
  } else {
    const plain = createServer(listener);
    plain.on('clientError', answerClientError);
    plain.on('connection', (socket: Socket) => trackSocket(socket));
    plain.on('upgrade', onUpgrade);
    plain.on('connect', onConnect);
    server = plain;
  }
  function trackSocket(socket: Socket): void {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const url = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;

  /** Resolves when `done()` holds or `ms` passed (false then). */
  const waitUntil = (done: () => boolean, ms: number): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      if (done()) return resolve(true);
      const check = (): void => {
        if (!done()) return;
        finish(true);
      };
      const timer = setTimeout(() => finish(false), ms);
      timer.unref();
      function finish(ok: boolean): void {
        clearTimeout(timer);
        waiters.delete(check);
        resolve(ok);
      }
      waiters.add(check);
    });

  const runShutdown = async (gracePeriodMs: number): Promise<void> => {
    shuttingDown = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    closeIdle(server);
    for (const session of sessions) session.close();
    for (const ctx of inflight) if (!ctx.res.headersSent) ctx.res.setHeader('Connection', 'close');

    await waitUntil(() => [...inflight].every((ctx) => ctx.longRunning), gracePeriodMs);

    longRunning.abort();
    // Let handlers that watch the signal end their own responses first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const ctx of inflight) {
      const res = ctx.res;
      if (ctx.longRunning && res.headersSent && !res.writableEnded) {
        res.end();
        silence(res);
      } else if (!res.writableEnded) {
        res.destroy();
      }
    }
    await waitUntil(() => inflight.size === 0, 5_000);

    closeIdle(server);
    for (const session of sessions) session.destroy();
    for (const socket of sockets) socket.destroy();
    await closed;
    for (const cleanup of cleanups) await cleanup();
  };

  return {
    url,
    server,
    longRunningSignal: longRunning.signal,
    inFlight: () => inflight,
    onShutdown: (cleanup) => {
      cleanups.push(cleanup);
    },
    shutdown: (opts = {}) => {
      shutdownPromise ??= runShutdown(opts.gracePeriodMs ?? 60_000);
      return shutdownPromise;
    },
  };
}

/** http.Server has it; node adds it to an HTTP/2 server with allowHTTP1 for its HTTP/1.1 connections. */
function closeIdle(server: Server | Http2SecureServer): void {
  (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
}

/** After shutdown ended a response, the handler's later writes are dropped instead of raising write-after-end. */
function silence(res: ServerResponse): void {
  const target = res as unknown as Record<string, unknown>;
  for (const name of GUARDED) {
    if (typeof target[name] !== 'function') continue;
    target[name] = (...args: unknown[]): unknown => {
      const cb = args.findLast((a) => typeof a === 'function') as ((err?: Error) => void) | undefined;
      if (cb && (name === 'write' || name === 'end')) queueMicrotask(() => cb());
      return name === 'write' ? true : res;
    };
  }
}

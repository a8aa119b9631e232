import { type Agent, type ClientRequest, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import type { RequestContext } from '../filters/context.ts';
import { hijackConnection, isUpgradeRequest } from '../serving/upgrade.ts';
import { ProxyError, proxyErrorOf, writeProxyError } from './proxy-error.ts';

/**
 * A reverse proxy for one request (kube's apimachinery proxy.UpgradeAwareHandler over httputil.ReverseProxy): the
 * method, path and query, headers (hop-by-hop ones removed, X-Forwarded-For appended) and body go to the location,
 * whose status, headers and body stream back as they come (a watch's events are not held back), each side ending
 * or aborting the other. An HTTP/1.1 upgrade request (websocket, SPDY) is sent with its upgrade headers; once the
 * remote answers 101, the client's raw connection is taken from serve() and the two connections are piped.
 */

export interface ProxyLocation {
  /** Where the request goes: scheme (https: or http:), host and port, path and query. */
  url: URL;
  /** Its connections (TLS settings: CA, server name, client certificate; keep-alive). */
  agent?: Agent | undefined;
}

export interface ProxyOptions {
  /** Edits the forwarded request's headers (lower-case names; hop-by-hop ones already removed). */
  headers?: (headers: Record<string, string | string[]>) => void;
  /** The Host header sent; default the location's host (kube's NewRequestForProxy). */
  host?: string;
  /**
   * Abort and answer a failure when the exchange has not ended within this time (kube gives discovery requests of
   * the aggregator 5 s); none by default (the chain's request timeout applies).
   */
  timeoutMs?: number;
  /** Refuse a request that is not an upgrade (kube's UpgradeRequired): 400 through `onError`. */
  upgradeRequired?: boolean;
  /**
   * kube's rewriting proxy transport's X-Forwarded-Uri (the path the client asked for), X-Forwarded-Host and
   * X-Forwarded-Proto (when known). None by default.
   */
  forwarded?: { uri: string; host?: string; proto?: string };
  /** Rewrites the remote's Location header (kube's proxy transport points it back through the proxy path). */
  rewriteLocation?: (location: string) => string;
  /** A 3xx answer with a Location becomes 502 (kube's RejectForwardingRedirects). */
  rejectForwardingRedirects?: boolean;
  /**
   * Answers a failure that happened before the remote's answer was forwarded. Default kube-aggregator's responder:
   * 503 with the error's text as text/plain. The texts are kube's: `error trying to reach service: <Go's error>` when
   * the request could not be sent (its proxy transport's ServiceUnavailable), `error dialing backend: <…>` for an
   * upgrade, `invalid upgrade response: status code <n>` for an upgrade the remote answered without switching.
   */
  onError?: (ctx: RequestContext, err: ProxyError) => void;
}

/** Go's ReverseProxy hop-by-hop headers (RFC 7230 §6.1), removed in both directions. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Hop-by-hop names of one message: the fixed ones and those its Connection header lists. */
function hopByHop(connection: readonly string[] | undefined): ReadonlySet<string> {
  if (!connection?.length) return HOP_BY_HOP;
  const out = new Set(HOP_BY_HOP);
  for (const v of connection) for (const t of v.split(',')) if (t.trim()) out.add(t.trim().toLowerCase());
  return out;
}

/** The request's end-to-end headers (every value kept, HTTP/2 pseudo-headers dropped). */
function forwardedHeaders(req: IncomingMessage, upgrade: boolean): Record<string, string | string[]> {
  const distinct = req.headersDistinct;
  // An upgrade is forwarded with its Connection/Upgrade headers, as kube's tryUpgrade clones the whole request.
  const drop = upgrade ? undefined : hopByHop(distinct.connection);
  const out: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(distinct)) {
    if (!values || name.startsWith(':') || drop?.has(name)) continue;
    out[name] = values.length === 1 ? (values[0] as string) : values;
  }
  if (drop && distinct.te?.some((v) => v.toLowerCase().includes('trailers'))) out.te = 'trailers';
  // Go's ReverseProxy: the client's address is appended to X-Forwarded-For (prior values joined into one).
  const ip = req.socket?.remoteAddress;
  if (ip) {
    const prior = distinct['x-forwarded-for'];
    out['x-forwarded-for'] = prior?.length ? `${prior.join(', ')}, ${ip}` : ip;
  }
  return out;
}

/** kube's proxy transport drops the remote's CORS answers (corsRemovingTransport): the front server has its own. */
const CORS_HEADERS = new Set([
  'access-control-allow-credentials',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
]);

/** The response's end-to-end headers, by their first spelling, each with all its values. */
function responseHeaders(res: IncomingMessage): Map<string, { name: string; values: string[] }> {
  const raw = res.rawHeaders;
  const connection: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === 'connection') connection.push(raw[i + 1] as string);
  const drop = hopByHop(connection);
  const out = new Map<string, { name: string; values: string[] }>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (drop.has(lower) || CORS_HEADERS.has(lower)) continue;
    const entry = out.get(lower);
    if (entry) entry.values.push(raw[i + 1] as string);
    else out.set(lower, { name, values: [raw[i + 1] as string] });
  }
  return out;
}

const defaultOnError = (ctx: RequestContext, err: ProxyError): void => writeProxyError(ctx.res, err.message);

/**
 * Proxies `ctx`'s request to `location`; resolves when the exchange is over (the response ended or was cut, or the
 * upgraded connections closed). Failures are answered through `options.onError`; it never rejects.
 */
export function proxyRequest(ctx: RequestContext, location: ProxyLocation, options: ProxyOptions = {}): Promise<void> {
  const upgrade = isUpgradeRequest(ctx.req);
  const onError = options.onError ?? defaultOnError;
  if (options.upgradeRequired && !upgrade) {
    onError(ctx, new ProxyError('Upgrade request required', 'PROXY_UPGRADE_REQUIRED'));
    return Promise.resolve();
  }
  const { url } = location;
  const dialled = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  const headers = forwardedHeaders(ctx.req, upgrade);
  if (options.forwarded) {
    headers['x-forwarded-uri'] = options.forwarded.uri;
    if (options.forwarded.host) headers['x-forwarded-host'] = options.forwarded.host;
    if (options.forwarded.proto) headers['x-forwarded-proto'] = options.forwarded.proto;
  }
  options.headers?.(headers);
  headers.host = options.host ?? url.host;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send({
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    method: ctx.req.method ?? 'GET',
    headers: headers as OutgoingHttpHeaders,
    ...(location.agent ? { agent: location.agent } : {}),
  });
  return new Promise<void>((resolve) => {
    const res = ctx.res;
    let settled = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve();
    };
    const fail = (err: unknown): void => {
      if (settled) return;
      if (answered) {
        // Mid-stream: Go's ReverseProxy aborts the client's response (http.ErrAbortHandler).
        res.destroy();
      } else {
        answered = true;
        const e = proxyErrorOf(err, dialled);
        // kube's wording: its proxy transport's error for a request, its dialer's for an upgrade.
        const transport = !e.code.startsWith('PROXY_') || e.code === 'PROXY_TIMEOUT';
        const prefix = !transport ? '' : upgrade ? 'error dialing backend: ' : 'error trying to reach service: ';
        onError(ctx, new ProxyError(`${prefix}${e.message}`, e.code, err));
      }
      upstream.destroy();
      finish();
    };
    upstream.on('error', fail);
    if (options.timeoutMs !== undefined && options.timeoutMs > 0) {
      timer = setTimeout(() => fail(new ProxyError('context deadline exceeded', 'PROXY_TIMEOUT')), options.timeoutMs);
      timer.unref();
    }
    // The client went away: so does the request to the remote (kube propagates the request's context).
    res.once('close', () => {
      if (settled) return;
      upstream.destroy();
      finish();
    });

    upstream.on('response', (remote) => {
      if (upgrade && remote.statusCode !== 101 && (remote.statusCode ?? 0) < 400) {
        remote.resume();
        fail(new ProxyError(`invalid upgrade response: status code ${remote.statusCode}`, 'PROXY_UPGRADE'));
        return;
      }
      answered = true;
      forwardResponse(ctx, remote, options, upgrade);
      remote.on('error', fail);
      remote.once('close', () => {
        if (!remote.complete) fail(new Error('the remote cut its response'));
      });
      // HTTP/2's compat response also 'finish'es when its stream is reset: a remote still sending is then let go.
      res.once('finish', () => {
        if (!remote.complete) upstream.destroy();
        finish();
      });
    });

    if (upgrade) {
      upstream.on('upgrade', (remote, socket, head) => {
        const conn = hijackConnection(ctx);
        if (!conn) {
          socket.destroy();
          fail(new ProxyError(`request connection cannot be hijacked: ${res.constructor.name}`, 'PROXY_HIJACK'));
          return;
        }
        answered = true;
        if (timer) clearTimeout(timer);
        pipeUpgraded(conn.socket, conn.head, remote, socket, head, finish);
      });
      // The upgraded protocol's bytes follow on the connection once switched; the request itself has no body.
      upstream.end();
      return;
    }
    pipeBody(ctx, upstream);
  });
}

/** Streams the client's body to the remote (the compat HTTP/2 request is a Readable too). */
function pipeBody(ctx: RequestContext, upstream: ClientRequest): void {
  ctx.req.pipe(upstream);
  ctx.req.once('error', () => upstream.destroy());
}

/** Writes the remote's status and headers (a watch's at once, so its client sees them before any event), then its body. */
function forwardResponse(ctx: RequestContext, remote: IncomingMessage, options: ProxyOptions, upgrade: boolean): void {
  const res = ctx.res;
  const status = remote.statusCode ?? 502;
  if (options.rejectForwardingRedirects && status >= 300 && status <= 399 && remote.headers.location) {
    remote.resume();
    const msg = 'the backend attempted to redirect this request, which is not permitted';
    res.statusCode = 502;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(msg));
    res.end(msg);
    return;
  }
  res.statusCode = status;
  for (const [lower, { name, values }] of responseHeaders(remote)) {
    if (lower === 'location' && options.rewriteLocation && values.length === 1)
      res.setHeader(name, options.rewriteLocation(values[0] as string));
    else res.setHeader(name, values.length === 1 ? (values[0] as string) : values);
  }
  // An upgrade the remote refused is echoed and the connection closed (kube writes it to the hijacked connection).
  if (upgrade) res.setHeader('Connection', 'close');
  // A stream (no Content-Length: a watch) shows its head at once; an answer of known length goes out in one write.
  if (remote.headers['content-length'] === undefined) res.flushHeaders();
  remote.pipe(res);
}

/** Sends the remote's 101 head and early bytes to the client, the client's early bytes to the remote, then pipes. */
function pipeUpgraded(client: Duplex, clientHead: Buffer, remote: IncomingMessage, socket: Duplex, head: Buffer, done: () => void): void {
  const raw = remote.rawHeaders;
  let text = `HTTP/${remote.httpVersion} ${remote.statusCode} ${remote.statusMessage ?? ''}\r\n`;
  for (let i = 0; i < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  client.write(`${text}\r\n`);
  if (head.length > 0) client.write(head);
  if (clientHead.length > 0) socket.write(clientHead);
  client.pipe(socket);
  socket.pipe(client);
  // Either side's end ends the exchange (kube's proxy returns when one copy ends and closes both): what was read is
  // flushed, then both connections close, even when a peer keeps its half open.
  const over = (): void => {
    for (const s of [client, socket]) if (!s.destroyed) s.end(() => s.destroy());
  };
  client.once('end', over);
  socket.once('end', over);
  let open = 2;
  const closed = (): void => {
    // One side gone: the other is closed too (kube's proxy returns when either copy ends).
    client.destroy();
    socket.destroy();
    if (--open === 0) done();
  };
  client.once('close', closed);
  socket.once('close', closed);
  client.on('error', () => client.destroy());
  socket.on('error', () => socket.destroy());
}

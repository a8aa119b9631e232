import type { Agent } from 'node:https';
import { request } from 'node:https';
import { proxyErrorOf } from '@kapi/server-core';

/**
 * One GET of the aggregator's own to a remote APIService's server (availability check, discovery and OpenAPI
 * fetches), bounded as kube's clients are: the whole exchange within a deadline (Go's http.Client Timeout and the
 * discovery manager's request context: 5 s), so a remote that trickles its answer cannot hold a controller's worker,
 * and the body within a size cap, so an endless or huge document cannot exhaust memory.
 */

/** kube's 5 s for each of these GETs. */
export const REMOTE_GET_TIMEOUT_MS = 5_000;
/** The most of a body read: several times an aggregated server's OpenAPI v2 (kube-apiserver's own, all built-in kinds, is a few MiB). */
export const REMOTE_GET_MAX_BYTES = 16 * 1024 * 1024;

export interface RemoteGetOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /** Resolve at the response's head, the body discarded (the availability check needs only the status). */
  headOnly?: boolean;
}

export interface RemoteResponse {
  status: number;
  contentType: string;
  etag: string | undefined;
  /** Empty with `headOnly`. */
  body: Buffer;
}

/** Why a remote GET failed, in Go's words (`Get "<url>": <error>`). */
export class RemoteGetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteGetError';
  }
}

/** GETs `url` through `agent`; rejects with a {@link RemoteGetError} on a network failure, the deadline or the cap. */
export function remoteGet(
  url: URL,
  agent: Agent,
  headers: Record<string, string>,
  options: RemoteGetOptions = {},
): Promise<RemoteResponse> {
  const timeoutMs = options.timeoutMs ?? REMOTE_GET_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? REMOTE_GET_MAX_BYTES;
  const quoted = JSON.stringify(url.href);
  return new Promise((resolve, reject) => {
    let gotHead = false;
    let done = false;
    const fail = (message: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      reject(new RemoteGetError(`Get ${quoted}: ${message}`));
    };
    const req = request(url, { agent, method: 'GET', headers }, (res) => {
      gotHead = true;
      const head = { status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', etag: res.headers.etag };
      if (options.headOnly) {
        done = true;
        clearTimeout(timer);
        res.resume();
        // Nothing more is wanted of this connection: a trickling body must not keep it.
        res.destroy();
        resolve({ ...head, body: Buffer.alloc(0) });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) fail(`response body larger than ${maxBytes} bytes`);
        else chunks.push(c);
      });
      res.on('error', (err) => fail(proxyErrorOf(err, url.host).message));
      res.on('end', () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ ...head, body: Buffer.concat(chunks) });
      });
    });
    const timer = setTimeout(
      () =>
        fail(
          gotHead
            ? 'context deadline exceeded (Client.Timeout or context cancellation while reading body)'
            : 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        ),
      timeoutMs,
    );
    timer.unref();
    req.on('error', (err) => fail(proxyErrorOf(err, `${url.hostname}:${url.port || '443'}`).message));
    req.end();
  });
}

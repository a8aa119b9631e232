import { Agent, request } from 'node:https';

export interface HttpsFetchOptions {
  /** PEM CA bundle to trust instead of Node's default roots (kube's --oidc-ca-file). */
  ca?: string | Buffer | undefined;
  /** Whole-request limit; default 30 s, as kube's OIDC HTTP client. */
  timeoutMs?: number;
  /** Largest response body read; a longer one fails the request. Default 4 MiB. */
  maxBytes?: number;
}

/** The part of `fetch` that discovery and jose's remote key set use: GET with headers and a signal. */
export type GetFetch = (
  url: string | URL,
  init?: { headers?: ConstructorParameters<typeof Headers>[0]; signal?: AbortSignal | null },
) => Promise<Response>;

/** A GetFetch holding kept-alive connections; `close()` drops them. */
export interface HttpsFetch extends GetFetch {
  close(): void;
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/**
 * A GET-only `fetch` over node:https that trusts `ca`. Node's global fetch takes its CA only from an undici
 * dispatcher (a package kapi does not depend on), so OIDC discovery and jose's remote JWK set use this one. Only
 * https URLs; redirects are not followed (the caller sees the 3xx, as jose's `redirect: 'manual'` asks); bodies
 * are bounded so a misbehaving issuer cannot make the server buffer without end.
 */
export function httpsFetch(options: HttpsFetchOptions = {}): HttpsFetch {
  const agent = new Agent({ keepAlive: true, ...(options.ca !== undefined ? { ca: options.ca } : {}) });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  const get: GetFetch = (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      if (url.protocol !== 'https:') {
        reject(new TypeError(`only https URLs can be fetched, not ${JSON.stringify(url.protocol)}`));
        return;
      }
      const signals = [AbortSignal.timeout(timeoutMs), ...(init.signal ? [init.signal] : [])];
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const req = request(url, { method: 'GET', agent, headers, signal: AbortSignal.any(signals) }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy(new Error(`response from ${url.origin}${url.pathname} is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const responseHeaders = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
            responseHeaders.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
          }
          const body = NULL_BODY_STATUS.has(status) ? null : Buffer.concat(chunks);
          try {
            resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
          } catch (err) {
            reject(err);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
  return Object.assign(get, { close: () => agent.destroy() });
}

import { request } from 'node:https';
import type { Serving } from '../serving/serve.ts';

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
  body: any;
}

export interface CallOptions {
  client?: { cert: string; key: string };
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * One HTTPS request to `path` of the server at `serving.url` (a Serving, or anything with its URL) trusting `ca`, with
 * an optional client certificate; the answer parsed when it is JSON.
 */
export function callWith(ca: string, serving: Pick<Serving, 'url'>, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${serving.url}${path}`,
      {
        method,
        ca,
        ...(opts.client ?? {}),
        agent: false,
        headers: { accept: 'application/json', 'content-type': 'application/json', ...(opts.headers ?? {}) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => {
          let parsed: unknown = body;
          try {
            parsed = JSON.parse(body);
          } catch {
            // not JSON (e.g. healthz's "ok")
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

/** The Authorization header of a bearer token. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

import { request } from 'node:https';

/** Dev-only (excluded from the build): one HTTPS request, its answer parsed when it is JSON. */

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
  body: any;
}

export interface CallOptions {
  /** PEM CA the server's certificate must chain to. */
  ca: string;
  /** A client certificate and key to present. */
  client?: { cert: string; key: string };
  headers?: Record<string, string>;
  body?: unknown;
}

export function call(url: string, method: string, opts: CallOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: opts.ca,
        ...(opts.client ?? {}),
        agent: false,
        headers: { accept: 'application/json', 'content-type': 'application/json', ...(opts.headers ?? {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

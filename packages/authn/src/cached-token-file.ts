import { readFileSync } from 'node:fs';
import type { WebhookClientConfig } from './webhook-client.ts';

export interface CachedTokenFileOptions {
  /** How long a read token is used (client-go's fileTokenSource period: a minute). */
  periodMs?: number;
  /** Re-read this much before the period ends (client-go's cachingTokenSource leeway: 10 s). */
  leewayMs?: number;
  /** The clock; injected by tests. */
  now?: () => number;
}

/**
 * client-go's NewCachedFileTokenSource: a bearer token file (e.g. a projected service account token, which the kubelet
 * rotates) re-read at most once a period, so a rotated token is picked up without reading the file on every request.
 * A file that cannot be read (or is empty) after a good read keeps the token last read, as client-go
 * ("Unable to rotate token").
 */
export class CachedTokenFile {
  readonly path: string;
  readonly #periodMs: number;
  readonly #leewayMs: number;
  readonly #now: () => number;
  #token: string | undefined;
  #expiry = 0;

  constructor(path: string, options: CachedTokenFileOptions = {}) {
    this.path = path;
    this.#periodMs = options.periodMs ?? 60_000;
    this.#leewayMs = options.leewayMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** The token: cached while fresh, else read again; throws when the file has never been read. */
  token(): string {
    const now = this.#now();
    if (this.#token !== undefined && this.#expiry - this.#leewayMs > now) return this.#token;
    try {
      const token = readFileSync(this.path, 'utf8').trim();
      if (!token) throw new Error(`read empty token from file "${this.path}"`);
      this.#token = token;
      this.#expiry = now + this.#periodMs;
    } catch (err) {
      if (this.#token === undefined) throw err;
    }
    return this.#token;
  }
}

/**
 * The bearer token of each request to a webhook config's server, as client-go's NewBearerAuthWithRefreshRoundTripper:
 * `token` as given, or with `tokenFile` the file's current token (read now when there is no `token`: an unreadable file
 * fails here), falling back to the first token when a later read fails.
 */
export function bearerTokenSource(config: WebhookClientConfig): () => string | undefined {
  const { tokenFile } = config;
  if (tokenFile === undefined) return () => config.token;
  const file = typeof tokenFile === 'string' ? new CachedTokenFile(tokenFile) : tokenFile;
  const first = config.token || file.token();
  return () => {
    try {
      return file.token();
    } catch {
      return first;
    }
  };
}

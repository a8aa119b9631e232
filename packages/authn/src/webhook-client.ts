import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, request as httpsRequest } from 'node:https';
import { bearerTokenSource, type CachedTokenFile } from './cached-token-file.ts';

/** Where the webhook is and how to reach it: the parts of a kubeconfig kube's webhook client reads. */
export interface WebhookClientConfig {
  /** `https://host:port/path` (http only for tests). */
  server: string;
  /** PEM CA bundle to verify the webhook's serving certificate; default the system roots. */
  ca?: string | Buffer;
  /** PEM client certificate and key presented to the webhook. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Bearer token sent to the webhook (the kubeconfig user's token). */
  token?: string;
  /**
   * A file holding the bearer token (kubeconfig's tokenFile, an in-cluster service account token), re-read as
   * client-go's cached file token source: at most once a minute, so a rotated token is picked up. A reader may be given
   * instead of a path (e.g. with a shorter period).
   */
  tokenFile?: string | CachedTokenFile;
  tlsServerName?: string;
  insecureSkipTLSVerify?: boolean;
}

/** The TLS settings of a config's connections (client-go's TLSClientConfig), for an https Agent or request. */
export function webhookTLSOptions(
  config: WebhookClientConfig,
): Pick<HttpsAgentOptions, 'ca' | 'cert' | 'key' | 'servername' | 'rejectUnauthorized'> {
  return {
    ...(config.ca ? { ca: config.ca } : {}),
    ...(config.cert ? { cert: config.cert } : {}),
    ...(config.key ? { key: config.key } : {}),
    ...(config.tlsServerName ? { servername: config.tlsServerName } : {}),
    rejectUnauthorized: !config.insecureSkipTLSVerify,
  };
}

/** kube's wait.Backoff for webhook retries. */
export interface RetryBackoff {
  initialDelayMs: number;
  factor: number;
  jitter: number;
  /** Attempts in all (kube's Steps). */
  steps: number;
}

/** kube's DefaultRetryBackoffWithInitialDelay(500ms): 500 ms, ×1.5, jitter 0.2, 5 attempts. */
export const DEFAULT_WEBHOOK_RETRY_BACKOFF: RetryBackoff = { initialDelayMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** kube's webhook defaultRequestTimeout (and the 30 s kube-apiserver sets for an authorization webhook from flags). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;

export interface WebhookClientOptions {
  retryBackoff?: RetryBackoff;
  timeoutMs?: number;
  /** Waits between retries; injected by tests. */
  sleep?: (ms: number) => Promise<void>;
  /** A longer answer is refused (so a broken webhook cannot fill the heap). Default 4 MiB. */
  maxResponseBytes?: number;
}

/**
 * A failed webhook call. `retriable` is kube's DefaultShouldRetry (see {@link retriableStatus}; of transport errors only
 * a reset connection); `timeout` tells a
 * timed-out call from other failures (kube's metrics count them apart); `statusCode` is the answer's, when there was one.
 */
export class WebhookCallError extends Error {
  readonly retriable: boolean;
  readonly timeout: boolean;
  readonly statusCode: number | undefined;
  constructor(message: string, retriable: boolean, opts: { timeout?: boolean; statusCode?: number } = {}) {
    super(message);
    this.name = 'WebhookCallError';
    this.retriable = retriable;
    this.timeout = opts.timeout ?? false;
    this.statusCode = opts.statusCode;
  }
}

/** One attempt of a call, for metrics: how long it took and how it failed, if it did. */
export interface WebhookAttempt {
  seconds: number;
  error?: WebhookCallError;
}

/**
 * kube's DefaultShouldRetry for an answer: 500 (client-go's InternalError), 504 (Timeout), 429 (TooManyRequests), or any
 * error answer with a positive Retry-After (SuggestsClientDelay). Other 5xx, e.g. 502 and 503 without Retry-After, fail
 * at once.
 */
export function retriableStatus(code: number, retryAfter: string | undefined): boolean {
  if (code === 500 || code === 504 || code === 429) return true;
  return retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) && Number(retryAfter) > 0;
}

const sleepReal = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * kube's GenericWebhook (k8s.io/apiserver/pkg/util/webhook): JSON POSTed to the server of a kubeconfig, over kept-alive
 * connections that trust the kubeconfig's CA and present its client certificate or token, retried with kube's
 * exponential backoff while DefaultShouldRetry says so. The token, webhook-token and webhook authorizer share it.
 */
export class WebhookClient {
  readonly #url: URL;
  readonly #agent: HttpAgent | HttpsAgent;
  readonly #backoff: RetryBackoff;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #maxResponseBytes: number;
  readonly #token: () => string | undefined;

  constructor(config: WebhookClientConfig, options: WebhookClientOptions = {}) {
    const steps = (options.retryBackoff ?? DEFAULT_WEBHOOK_RETRY_BACKOFF).steps;
    if (steps <= 0) throw new Error(`number of webhook retry attempts must be greater than 0, but is: ${steps}`);
    this.#url = new URL(config.server);
    this.#token = bearerTokenSource(config);
    if (this.#url.protocol !== 'https:' && this.#url.protocol !== 'http:')
      throw new Error(`webhook server must be an https URL, got protocol ${this.#url.protocol}`);
    this.#agent =
      this.#url.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, ...webhookTLSOptions(config) })
        : new HttpAgent({ keepAlive: true });
    this.#backoff = options.retryBackoff ?? DEFAULT_WEBHOOK_RETRY_BACKOFF;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.#sleep = options.sleep ?? sleepReal;
    this.#maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
  }

  /** Closes kept-alive connections to the webhook. */
  close(): void {
    this.#agent.destroy();
  }

  /**
   * POSTs `body` (JSON text) and returns the parsed JSON answer of a 2xx; retries as kube's WithExponentialBackoff.
   * `onAttempt` hears of every attempt (kube records its webhook metrics per attempt). Throws the last
   * {@link WebhookCallError}.
   */
  async post(body: string, onAttempt?: (attempt: WebhookAttempt) => void): Promise<unknown> {
    let delay = this.#backoff.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      const start = performance.now();
      try {
        const reply = await this.#post(body);
        onAttempt?.({ seconds: (performance.now() - start) / 1000 });
        return reply;
      } catch (err) {
        const error = err instanceof WebhookCallError ? err : new WebhookCallError(String(err), false);
        onAttempt?.({ seconds: (performance.now() - start) / 1000, error });
        if (!error.retriable || attempt >= this.#backoff.steps) throw error;
        await this.#sleep(delay + Math.random() * this.#backoff.jitter * delay);
        delay *= this.#backoff.factor;
      }
    }
  }

  #post(body: string): Promise<unknown> {
    const send = this.#url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    const token = this.#token();
    if (token) headers.authorization = `Bearer ${token}`;
    return new Promise((resolve, reject) => {
      const req = send(this.#url, { method: 'POST', agent: this.#agent, headers, timeout: this.#timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > this.#maxResponseBytes) {
            reject(new WebhookCallError(`the webhook answered more than ${this.#maxResponseBytes} bytes`, false));
            req.destroy();
            return;
          }
          chunks.push(c);
        });
        res.on('error', (e) => reject(new WebhookCallError(e.message, true)));
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          const opts = { statusCode: code, timeout: code === 504 };
          if (code < 200 || code > 299) {
            const retryAfter = res.headers['retry-after'];
            return reject(new WebhookCallError(`the webhook answered ${code}`, retriableStatus(code, retryAfter), opts));
          }
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new WebhookCallError('the webhook answered a body that is not JSON', false, { statusCode: code }));
          }
        });
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error(`timeout after ${this.#timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      // Node's messages name the address and the cause, never the request body (which may hold a token). As kube's
      // DefaultShouldRetry (utilnet.IsConnectionReset), a reset connection is retried; a timeout, a TLS failure or a
      // refused connection is not.
      req.on('error', (e: NodeJS.ErrnoException) =>
        reject(new WebhookCallError(e.message, e.code === 'ECONNRESET', { timeout: e.code === 'ETIMEDOUT' })),
      );
      req.end(body);
    });
  }
}

import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { dirname, isAbsolute, join } from 'node:path';
import { intersectAudiences } from './audiences.ts';
import type { AuthenticationResult } from './authenticator.ts';
import type { TokenAuthenticator } from './bearer-token.ts';
import { TokenCache, type TokenCacheOptions } from './token-cache.ts';
import type { UserInfo } from './user-info.ts';

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
  tlsServerName?: string;
  insecureSkipTLSVerify?: boolean;
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

/** kube's webhook defaultRequestTimeout. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;

export interface WebhookTokenOptions {
  /** The server's API audiences: what a webhook that answers without status.audiences is taken to have checked. */
  apiAudiences?: readonly string[];
  retryBackoff?: RetryBackoff;
  timeoutMs?: number;
  /** Waits between retries; injected by tests. */
  sleep?: (ms: number) => Promise<void>;
  /** A longer answer is refused (so a broken webhook cannot fill the heap). Default 4 MiB. */
  maxResponseBytes?: number;
}

/** An error from the webhook call that kube's DefaultShouldRetry retries: transport errors, 429, 5xx. */
class WebhookCallError extends Error {
  readonly retriable: boolean;
  constructor(message: string, retriable: boolean) {
    super(message);
    this.name = 'WebhookCallError';
    this.retriable = retriable;
  }
}

const RETRIABLE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

const sleepReal = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * kube's webhook token authenticator (plugin/pkg/authenticator/token/webhook): each bearer token is sent as an
 * authentication.k8s.io/v1 TokenReview (`spec.token`, `spec.audiences` = the request's audiences) to a remote service
 * configured by a kubeconfig-format file, which answers `status.authenticated`, `status.user` and `status.audiences`.
 * Transport errors, 429 and 5xx are retried with kube's backoff; errors never carry the token. Wrap it in a
 * {@link TokenCache} (as {@link webhookTokenAuthenticator} does) so each token is asked once per TTL.
 *
 * @example
 * const webhook = webhookTokenAuthenticator(loadWebhookKubeconfig('/etc/kapi/authn-webhook.json'));
 */
export class WebhookTokenAuthenticator implements TokenAuthenticator {
  readonly #config: WebhookClientConfig;
  readonly #url: URL;
  readonly #agent: HttpAgent | HttpsAgent;
  readonly #implicit: readonly string[];
  readonly #backoff: RetryBackoff;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #maxResponseBytes: number;

  constructor(config: WebhookClientConfig, options: WebhookTokenOptions = {}) {
    this.#config = config;
    this.#url = new URL(config.server);
    if (this.#url.protocol !== 'https:' && this.#url.protocol !== 'http:')
      throw new Error(`webhook server must be an https URL, got protocol ${this.#url.protocol}`);
    this.#agent =
      this.#url.protocol === 'https:'
        ? new HttpsAgent({
            keepAlive: true,
            ...(config.ca ? { ca: config.ca } : {}),
            ...(config.cert ? { cert: config.cert } : {}),
            ...(config.key ? { key: config.key } : {}),
            ...(config.tlsServerName ? { servername: config.tlsServerName } : {}),
            rejectUnauthorized: !config.insecureSkipTLSVerify,
          })
        : new HttpAgent({ keepAlive: true });
    this.#implicit = [...(options.apiAudiences ?? [])];
    this.#backoff = options.retryBackoff ?? DEFAULT_WEBHOOK_RETRY_BACKOFF;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.#sleep = options.sleep ?? sleepReal;
    this.#maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
  }

  /** Closes kept-alive connections to the webhook. */
  close(): void {
    this.#agent.destroy();
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
    const review = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(audiences?.length ? { audiences: [...audiences] } : {}) },
    };
    let reply: unknown;
    try {
      reply = await this.#withBackoff(() => this.#post(JSON.stringify(review)));
    } catch (err) {
      throw new Error(`Failed to make webhook authenticator request: ${(err as Error).message}`);
    }
    const status = (reply as { status?: unknown } | null)?.status as Record<string, unknown> | undefined;
    if (!status || typeof status !== 'object') throw new Error('webhook authenticator: TokenReview response has no status');
    let auds: string[] | undefined;
    if (audiences !== undefined) {
      const got = Array.isArray(status.audiences) && status.audiences.length ? (status.audiences as string[]) : this.#implicit;
      auds = intersectAudiences(audiences, got);
      if (auds.length === 0) return null;
    }
    if (status.authenticated !== true) {
      // A denial with a reason fails the request; a plain denial is "not mine" (kube's webhook does the same).
      if (typeof status.error === 'string' && status.error !== '') throw new Error(status.error);
      return null;
    }
    const u = (status.user ?? {}) as Record<string, unknown>;
    const user: UserInfo = {
      name: typeof u.username === 'string' ? u.username : '',
      ...(typeof u.uid === 'string' && u.uid ? { uid: u.uid } : {}),
      groups: Array.isArray(u.groups) ? u.groups.filter((g): g is string => typeof g === 'string') : [],
      ...(u.extra && typeof u.extra === 'object' ? { extra: extraOf(u.extra as Record<string, unknown>) } : {}),
    };
    return auds ? { user, audiences: auds } : { user };
  }

  async #withBackoff<T>(call: () => Promise<T>): Promise<T> {
    let delay = this.#backoff.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!(err instanceof WebhookCallError) || !err.retriable || attempt >= this.#backoff.steps) throw err;
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
    if (this.#config.token) headers.authorization = `Bearer ${this.#config.token}`;
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
          if (code === 429 || code >= 500) return reject(new WebhookCallError(`the webhook answered ${code}`, true));
          if (code < 200 || code > 299) return reject(new WebhookCallError(`the webhook answered ${code}`, false));
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new WebhookCallError('the webhook answered a body that is not JSON', false));
          }
        });
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error(`timeout after ${this.#timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      // Node's messages name the address and the cause, never the request body (which holds the token). As kube's
      // DefaultShouldRetry, a dropped connection or timeout is retried; a TLS failure or refused connection is not.
      req.on('error', (e: NodeJS.ErrnoException) => reject(new WebhookCallError(e.message, RETRIABLE_CODES.has(e.code ?? ''))));
      req.end(body);
    });
  }
}

function extraOf(extra: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extra)) {
    if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

/** kube's webhook token authenticator behind its token cache (the way kube-apiserver wires it). */
export function webhookTokenAuthenticator(
  config: WebhookClientConfig,
  options: WebhookTokenOptions & { cache?: TokenCacheOptions | false } = {},
): TokenAuthenticator {
  const webhook = new WebhookTokenAuthenticator(config, options);
  return options.cache === false ? webhook : new TokenCache(webhook, options.cache ?? {});
}

type Named<T> = { name?: string } & T;
interface Kubeconfig {
  'current-context'?: string;
  clusters?: Named<{ cluster?: Record<string, unknown> }>[];
  users?: Named<{ user?: Record<string, unknown> }>[];
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
}

/**
 * The webhook client config of a kubeconfig-format object (kube's --authentication-token-webhook-config-file):
 * the current context's cluster and user, else the first of each. Relative file paths are relative to `baseDir`.
 */
export function webhookClientConfigOf(kubeconfig: unknown, baseDir = '.'): WebhookClientConfig {
  const kc = (kubeconfig ?? {}) as Kubeconfig;
  const ctx = kc.contexts?.find((c) => c.name === kc['current-context'])?.context;
  const cluster = (ctx ? kc.clusters?.find((c) => c.name === ctx.cluster) : kc.clusters?.[0])?.cluster;
  const user = (ctx ? kc.users?.find((u) => u.name === ctx.user) : kc.users?.[0])?.user ?? {};
  if (!cluster || typeof cluster.server !== 'string') throw new Error('webhook kubeconfig: no cluster with a server');
  const file = (p: unknown): Buffer => readFileSync(isAbsolute(String(p)) ? String(p) : join(baseDir, String(p)));
  const pem = (data: unknown, path: unknown): Buffer | undefined =>
    typeof data === 'string' && data ? Buffer.from(data, 'base64') : typeof path === 'string' && path ? file(path) : undefined;
  const ca = pem(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = pem(user['client-certificate-data'], user['client-certificate']);
  const key = pem(user['client-key-data'], user['client-key']);
  const token =
    typeof user.token === 'string' && user.token
      ? user.token
      : typeof user.tokenFile === 'string'
        ? file(user.tokenFile).toString('utf8').trim()
        : undefined;
  return {
    server: cluster.server,
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(token ? { token } : {}),
    ...(typeof cluster['tls-server-name'] === 'string' ? { tlsServerName: cluster['tls-server-name'] } : {}),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecureSkipTLSVerify: true } : {}),
  };
}

/**
 * Reads a webhook kubeconfig file. authn parses JSON (which is YAML too); pass a YAML parser (e.g. the `yaml`
 * package's `parse`) to read YAML kubeconfigs.
 */
export function loadWebhookKubeconfig(path: string, parse: (text: string) => unknown = JSON.parse): WebhookClientConfig {
  return webhookClientConfigOf(parse(readFileSync(path, 'utf8')), dirname(path));
}

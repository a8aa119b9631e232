import { Agent, request } from 'node:https';
import { readWebhookAnswer, type TransportError, transportMessage, WebhookCallFailure } from '@kapi/admission';
import { type Clock, goQuote, realClock } from '@kapi/apimachinery';
import type { WebhookClientConfig } from '../crd/types.ts';

// The CRD's own types (apiextensions.k8s.io/v1), exported here too as the client's configuration.
export type { ServiceReference, WebhookClientConfig } from '../crd/types.ts';

/**
 * Where a Service's webhook is reached (kube's webhook.ServiceResolver): an https URL whose host:port is dialled. The
 * TLS server name stays `<name>.<namespace>.svc`, as kube-apiserver verifies it.
 */
export type ServiceResolver = (namespace: string, name: string, port: number) => URL | string;

/** kube's defaultServiceResolver: https://<name>.<namespace>.svc:<port>. */
export const defaultServiceResolver: ServiceResolver = (namespace, name, port) => {
  if (!name || !namespace) throw new Error('cannot resolve an empty service name or namespace');
  return new URL(`https://${name}.${namespace}.svc:${port}`);
};

export interface HookClientOptions {
  serviceResolver?: ServiceResolver;
  /**
   * Bound on one call, default 30 s. kube-apiserver's conversion client has none of its own (a TODO in
   * webhook_converter.go); a bound keeps a hung webhook from holding a request forever.
   */
  timeoutMs?: number;
  /** The clock `timeoutMs` runs on (default real time; a test's FakeClock times a hung webhook out when advanced). */
  clock?: Clock;
  /** A longer answer is refused, so a broken webhook cannot fill the heap. Default 32 MiB. */
  maxResponseBytes?: number;
}

/** kube's ErrCallingWebhook, for a client config it cannot use. */
export class ErrCallingWebhook extends Error {
  constructor(webhookName: string, reason: string) {
    super(`failed calling webhook ${goQuote(webhookName)}: ${reason}`);
    this.name = 'ErrCallingWebhook';
  }
}

/**
 * What kube's webhook.ClientManager.HookClient builds for a conversion webhook, POSTing JSON over HTTPS (HTTP/1.1) to
 * the config's URL, or to its Service through the service resolver, trusting the caBundle; errors worded as client-go's
 * REST client words them (`Post "<url>": …`, a Status answer's message, NewGenericServerResponse for other answers).
 */
export class HookClient {
  readonly #url: URL;
  readonly #dial: URL | undefined;
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #maxResponseBytes: number;

  /**
   * `name` is kube's webhook name, e.g. `conversion_webhook_for_widgets.example.kapi.dev`. `config` has exactly one of
   * `url` (https) and `service`; `caBundle` is the base64 of the PEM CA bundle that verifies the webhook's serving
   * certificate (the system roots when empty). Throws ErrCallingWebhook.
   */
  constructor(name: string, config: WebhookClientConfig, options: HookClientOptions = {}) {
    const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64') : undefined;
    let servername: string | undefined;
    if (config.service) {
      const { namespace, name: svc, path = '', port = 443 } = config.service;
      servername = `${svc}.${namespace}.svc`;
      this.#url = new URL(`https://${servername}:${port}${path}`);
      const resolved = (options.serviceResolver ?? defaultServiceResolver)(namespace, svc, port);
      this.#dial = typeof resolved === 'string' ? new URL(resolved) : resolved;
    } else {
      if (!config.url) throw new ErrCallingWebhook(name, 'webhook configuration must have either service or URL');
      try {
        this.#url = new URL(config.url);
      } catch (err) {
        throw new ErrCallingWebhook(name, `Unparsable URL: ${(err as Error).message}`);
      }
      if (this.#url.protocol !== 'https:') throw new ErrCallingWebhook(name, `webhook URL must use https, got ${this.#url.protocol}`);
    }
    this.#agent = new Agent({
      keepAlive: true,
      ...(ca ? { ca } : {}),
      ...(servername ? { servername } : {}),
      ALPNProtocols: ['http/1.1'],
    });
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#clock = options.clock ?? realClock;
    this.#maxResponseBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  }

  /** The URL calls go to, as errors name it. */
  get url(): string {
    return this.#url.href;
  }

  close(): void {
    this.#agent.destroy();
  }

  /**
   * POSTs `body` as JSON; the parsed JSON of a 2xx answer, else rejects with @kapi/admission's WebhookCallFailure, worded
   * as admission webhook calls word theirs.
   */
  post(body: unknown): Promise<unknown> {
    const payload = JSON.stringify(body);
    const target = this.#dial ?? this.#url;
    const where = `Post ${goQuote(this.#url.href)}`;
    const deadline = this.#deadline();
    return new Promise<unknown>((resolve, reject) => {
      const req = request(
        {
          protocol: 'https:',
          hostname: target.hostname.replace(/^\[|\]$/g, ''),
          port: target.port || 443,
          path: `${this.#url.pathname}${this.#url.search}`,
          method: 'POST',
          agent: this.#agent,
          headers: {
            host: this.#url.host,
            'content-type': 'application/json',
            accept: 'application/json, */*',
            'content-length': Buffer.byteLength(payload),
          },
          signal: deadline.signal,
        },
        (res) => {
          readWebhookAnswer(req, res, where, this.#maxResponseBytes).then(resolve, reject);
        },
      );
      req.on('error', (e: TransportError) => {
        reject(new WebhookCallFailure(`${where}: ${transportMessage(e)}`));
      });
      req.end(payload);
    }).finally(deadline.clear);
  }

  /** A signal aborted (TimeoutError) after `timeoutMs` on the clock, and how to drop its timer once the call ended. */
  #deadline(): { signal: AbortSignal; clear: () => void } {
    const clock = this.#clock;
    const abort = new AbortController();
    const timer = clock.setTimeout(
      () => abort.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      this.#timeoutMs,
    );
    timer.unref?.(); // as AbortSignal.timeout's: the deadline alone keeps no process alive
    return { signal: abort.signal, clear: () => clock.clearTimeout(timer) };
  }
}

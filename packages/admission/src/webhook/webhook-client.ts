import { Agent, request } from 'node:https';
import { type Clock, goQuote } from '@kapi/apimachinery';
import type { WebhookClientConfig } from '../admissionregistration/types.ts';
import type { AuthenticationInfoResolver } from './authentication-info.ts';
import { caBundleHasCertificate } from './ca-bundle.ts';
import type { ServiceResolver } from './service-resolver.ts';
import { readWebhookAnswer, type TransportError, transportMessage, WebhookCallFailure } from './webhook-call-result.ts';

/**
 * The HTTPS client kube's webhook.ClientManager builds for one admission webhook's clientConfig: JSON POSTed over
 * kept-alive HTTP/1.1 connections trusting the caBundle (the system roots when empty), to `url` or to the Service
 * through the service resolver (TLS server name `<name>.<namespace>.svc`). Errors are worded as client-go words them
 * (`Post "<url>": …`; a Status answer's message; NewGenericServerResponse for other error answers).
 */

export interface WebhookClientOptions {
  serviceResolver: ServiceResolver;
  /** The credentials presented to each webhook by its host:port (kube's kubeConfigFile); none by default. */
  authentication?: AuthenticationInfoResolver | undefined;
  /** A longer answer is refused, so a broken webhook cannot fill the heap. Default 32 MiB. */
  maxResponseBytes?: number;
}

/** One webhook's client: built once per distinct clientConfig and reused (keep-alive) across calls. */
export class WebhookClient {
  /** The URL calls go to, as kube names it in errors (the Service's DNS name for a service). */
  readonly url: URL;
  /**
   * The URL's host as Go keeps it (url.Parse keeps an explicit port, kube joins a Service's with its port, 443
   * included), for error texts and the Host header; WHATWG's URL drops a default port.
   */
  readonly #host: string;
  /** Where a connection is dialled: the URL's host, or the Service's address asked of the resolver per call. */
  readonly #dial: () => URL;
  readonly #agent: Agent;
  readonly #maxResponseBytes: number;
  readonly #token: string | undefined;
  #inFlight = 0;
  #closing = false;

  /** Throws an Error (kube's "could not get REST client") when the config cannot be used. */
  constructor(config: WebhookClientConfig, options: WebhookClientOptions) {
    const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64') : undefined;
    if (ca && !caBundleHasCertificate(ca.toString('latin1')))
      throw new Error('unable to load root certificates: unable to parse bytes as PEM block');
    let servername: string | undefined;
    let hostPort: string;
    if (config.service) {
      const { namespace, name, path = '', port = 443 } = config.service;
      servername = `${name}.${namespace}.svc`;
      hostPort = `${servername}:${port}`;
      this.url = new URL(`https://${servername}:${port}${path}`);
      this.#host = hostPort;
      const resolver = options.serviceResolver;
      this.#dial = () => resolver.resolve(namespace, name, port);
    } else {
      if (!config.url) throw new Error('webhook configuration must have either service or URL');
      try {
        this.url = new URL(config.url);
      } catch (err) {
        throw new Error(`Unparsable URL: ${(err as Error).message}`);
      }
      if (this.url.protocol !== 'https:') throw new Error(`webhook URL must use https, got ${this.url.protocol}`);
      const url = this.url;
      this.#dial = () => url;
      // The authority as written (validation refuses userinfo).
      this.#host = /^https:\/\/([^/?#]*)/i.exec(config.url)?.[1] ?? this.url.host;
      hostPort = this.url.port ? this.url.host : `${this.url.host}:443`;
    }
    const auth = options.authentication?.clientConfigFor(hostPort);
    this.#token = auth?.token;
    this.#agent = new Agent({
      keepAlive: true,
      ...(ca ? { ca } : {}),
      ...(servername ? { servername } : {}),
      ...(auth?.cert ? { cert: auth.cert } : {}),
      ...(auth?.key ? { key: auth.key } : {}),
      ALPNProtocols: ['http/1.1'],
    });
    this.#maxResponseBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  }

  /** Closes the kept-alive connections, at once or when the calls in flight have ended. */
  close(): void {
    this.#closing = true;
    if (this.#inFlight === 0) this.#agent.destroy();
  }

  /**
   * POSTs `payload` (JSON text) with kube's `?timeout=<n>s` and a deadline of `timeoutSeconds` on `clock`; resolves
   * with the parsed JSON of a 2xx answer, else rejects with a {@link WebhookCallFailure}.
   */
  post(payload: string, timeoutSeconds: number, clock: Clock): Promise<unknown> {
    const path = `${this.url.pathname}${this.url.search ? `${this.url.search}&` : '?'}timeout=${timeoutSeconds}s`;
    const shown = `https://${this.#host}${path}`;
    const where = `Post ${goQuote(shown)}`;
    const abort = new AbortController();
    const timer = clock.setTimeout(
      () => abort.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeoutSeconds * 1000,
    );
    timer.unref?.();
    this.#inFlight++;
    const unavailable = (message: string) => new WebhookCallFailure(message);
    return new Promise<unknown>((resolve, reject) => {
      const send = (retried: boolean): void => {
        let dial: URL;
        try {
          dial = this.#dial();
        } catch (err) {
          // As kube's dialer for a Service: the resolver's error is the call's.
          reject(unavailable(`${where}: ${(err as Error).message}`));
          return;
        }
        const req = request(
          {
            protocol: 'https:',
            hostname: dial.hostname.replace(/^\[|\]$/g, ''),
            port: dial.port || 443,
            path,
            method: 'POST',
            agent: this.#agent,
            headers: {
              host: this.#host,
              'content-type': 'application/json',
              accept: 'application/json, */*',
              'content-length': Buffer.byteLength(payload),
              ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}),
            },
            signal: abort.signal,
          },
          (res) => {
            readWebhookAnswer(req, res, where, this.#maxResponseBytes).then(resolve, reject);
          },
        );
        req.on('error', (e: TransportError) => {
          // A kept-alive connection the webhook closed meanwhile: sent again once on a new one, as Go's transport
          // retries a request on a reused connection that failed before anything was answered.
          if (!retried && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && !abort.signal.aborted) {
            send(true);
            return;
          }
          reject(unavailable(`${where}: ${transportMessage(e)}`));
        });
        req.end(payload);
      };
      send(false);
    }).finally(() => {
      clock.clearTimeout(timer);
      this.#inFlight--;
      if (this.#closing && this.#inFlight === 0) this.#agent.destroy();
    });
  }
}

const keys = new WeakMap<WebhookClientConfig, string>();

/**
 * kube's ClientManager: one {@link WebhookClient} per distinct clientConfig, so each webhook keeps its connections.
 * Clients of configs no longer in use are closed when `retain` is told the current set.
 */
export class WebhookClientManager {
  readonly #clients = new Map<string, WebhookClient>();
  readonly #options: WebhookClientOptions;

  constructor(options: WebhookClientOptions) {
    this.#options = options;
  }

  /** The identity of a clientConfig: equal configs share a client (computed once per config object). */
  static key(config: WebhookClientConfig): string {
    let k = keys.get(config);
    if (k === undefined) {
      k = JSON.stringify([config.url ?? null, config.service ?? null, config.caBundle ?? null]);
      keys.set(config, k);
    }
    return k;
  }

  /** The client for `config`; throws when it cannot be built. */
  client(config: WebhookClientConfig): WebhookClient {
    const key = WebhookClientManager.key(config);
    let c = this.#clients.get(key);
    if (!c) {
      c = new WebhookClient(config, this.#options);
      this.#clients.set(key, c);
    }
    return c;
  }

  /** Closes the clients whose key is not in `keys` (configurations that changed or went away). */
  retain(keys: ReadonlySet<string>): void {
    for (const [k, c] of this.#clients)
      if (!keys.has(k)) {
        c.close();
        this.#clients.delete(k);
      }
  }

  close(): void {
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
  }
}

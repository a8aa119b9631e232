import { Agent, request } from 'node:https';
import { isIP as isIPAddress } from 'node:net';
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

/** client-go's errors.NewGenericServerResponse wording for an error answer that is not a Status. */
function genericServerResponse(code: number, serverMessage: string): string {
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
    case 415:
      return serverMessage;
    case 406:
      return serverMessage === '' || serverMessage === 'unknown'
        ? 'the server was unable to respond with a content type that the client supports'
        : serverMessage;
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
  }
  if (code >= 500) return `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

type TransportError = NodeJS.ErrnoException & { address?: string; port?: number; host?: string; cert?: { subjectaltname?: string } };

/** crypto/x509's HostnameError: the names the certificate is valid for (IP SANs for an IP host, else DNS SANs). */
function hostnameMessage(host: string, subjectAltName: string): string {
  const isIP = isIPAddress(host);
  const prefix = isIP ? 'IP Address:' : 'DNS:';
  const valid = subjectAltName
    .split(', ')
    .filter((s) => s.startsWith(prefix))
    .map((s) => s.slice(prefix.length));
  if (isIP && valid.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
  if (valid.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${valid.join(', ')}, not ${host}`;
}

/** Go's net/http and crypto/tls words for the transport failures a webhook call commonly meets. */
function transportMessage(e: TransportError): string {
  switch (e.code) {
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: ${hostnameMessage(e.host ?? '', e.cert?.subjectaltname ?? '')}`;
    case 'ECONNREFUSED':
      return `dial tcp ${e.address}:${e.port}: connect: connection refused`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ETIMEDOUT':
      return 'context deadline exceeded';
    default:
      return e.message;
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

  /** POSTs `body` as JSON; the parsed JSON of a 2xx answer, else throws an Error worded as client-go's. */
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
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > this.#maxResponseBytes) {
              req.destroy();
              reject(new Error(`${where}: the webhook answered more than ${this.#maxResponseBytes} bytes`));
            } else chunks.push(c);
          });
          res.on('error', (e) => reject(new Error(`${where}: ${transportMessage(e)}`)));
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            let parseError: string | undefined;
            try {
              json = JSON.parse(text);
            } catch (err) {
              parseError = (err as Error).message;
            }
            if (code >= 200 && code <= 299) {
              if (parseError !== undefined) reject(new Error(`couldn't get version/kind; json parse error: ${parseError}`));
              else resolve(json);
              return;
            }
            // client-go: an error answer that decodes as a Status is that Status; anything else is a generic error.
            const status = json as { kind?: unknown; apiVersion?: unknown; message?: unknown } | undefined;
            if (status && typeof status === 'object' && status.kind === 'Status' && status.apiVersion === 'v1')
              reject(new Error(typeof status.message === 'string' ? status.message : ''));
            else {
              const isText = (res.headers['content-type'] ?? '').startsWith('text/');
              reject(new Error(genericServerResponse(code, isText ? text.slice(0, 1024).trim() : 'unknown')));
            }
          });
        },
      );
      req.on('error', (e: TransportError) => {
        const timedOut = e.name === 'AbortError' || e.name === 'TimeoutError';
        reject(new Error(`${where}: ${timedOut ? 'context deadline exceeded' : transportMessage(e)}`));
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

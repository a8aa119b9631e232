import { Agent, request } from 'node:https';
import { isIP as isIPAddress } from 'node:net';
import { type Clock, goQuote, StatusError } from '@kapi/apimachinery';
import type { WebhookClientConfig } from '../admissionregistration/types.ts';
import type { AuthenticationInfoResolver } from './authentication-info.ts';
import type { ServiceResolver } from './service-resolver.ts';

/**
 * The HTTPS client kube's webhook.ClientManager builds for one admission webhook's clientConfig: JSON POSTed over
 * kept-alive HTTP/1.1 connections trusting the caBundle (the system roots when empty), to `url` or to the Service
 * through the service resolver (TLS server name `<name>.<namespace>.svc`). Errors are worded as client-go words them
 * (`Post "<url>": …`; a Status answer's message; NewGenericServerResponse for other error answers).
 */

/**
 * A call that got no usable answer. `status` is the error answer's Status when the webhook answered non-2xx (kube's
 * client-go StatusError); undefined for a transport failure, where the dispatcher picks kube's status.
 */
export class WebhookCallFailure extends Error {
  readonly status: StatusError | undefined;
  constructor(message: string, status?: StatusError) {
    super(message);
    this.name = 'WebhookCallFailure';
    this.status = status;
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

/** crypto/x509's HostnameError: the names the certificate is valid for. */
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
    case 'ECONNRESET':
      return 'EOF';
    default:
      return e.message;
  }
}

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
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (c: Buffer) => {
              size += c.length;
              if (size > this.#maxResponseBytes) {
                req.destroy();
                reject(unavailable(`${where}: the webhook answered more than ${this.#maxResponseBytes} bytes`));
              } else chunks.push(c);
            });
            res.on('error', (e: TransportError) => reject(unavailable(`${where}: ${transportMessage(e)}`)));
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
                if (parseError !== undefined) reject(unavailable(`couldn't get version/kind; json parse error: ${parseError}`));
                else resolve(json);
                return;
              }
              // client-go: an error answer that decodes as a Status is that Status; anything else is a generic error.
              const s = json as { kind?: unknown; apiVersion?: unknown; message?: unknown; reason?: unknown } | undefined;
              let message: string;
              if (s && typeof s === 'object' && s.kind === 'Status' && s.apiVersion === 'v1')
                message = typeof s.message === 'string' ? s.message : '';
              else {
                const isText = (res.headers['content-type'] ?? '').startsWith('text/');
                message = genericServerResponse(code, isText ? text.slice(0, 1024).trim() : 'unknown');
              }
              const reason = s && typeof s === 'object' && typeof s.reason === 'string' && s.reason ? s.reason : undefined;
              reject(new WebhookCallFailure(message, new StatusError({ code, message, ...(reason ? { reason } : {}) })));
            });
          },
        );
        req.on('error', (e: TransportError) => {
          // A kept-alive connection the webhook closed meanwhile: sent again once on a new one, as Go's transport
          // retries a request on a reused connection that failed before anything was answered.
          if (!retried && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && !abort.signal.aborted) {
            send(true);
            return;
          }
          const timedOut = e.name === 'AbortError' || e.name === 'TimeoutError';
          reject(unavailable(`${where}: ${timedOut ? 'context deadline exceeded' : transportMessage(e)}`));
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

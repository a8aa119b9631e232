import { Agent } from 'node:https';
import { caBundleHasCertificate, ServiceResolutionError, type ServiceResolver } from '@kapi/admission';
import { goQuote } from '@kapi/apimachinery';
import type { APIService, APIServiceServiceReference } from '../apiservice/types.ts';

/**
 * How the aggregator reaches a remote APIService (kube-aggregator's BuildTransportConfig + serviceResolver): the
 * Service is resolved to an address through the pluggable ServiceResolver (the one admission webhooks use), and
 * connections are TLS to that address, verifying the serving certificate against `spec.caBundle` for the name
 * `<service>.<namespace>.svc` (unless insecureSkipTLSVerify), presenting the proxy client certificate (kube's
 * --proxy-client-cert-file / --proxy-client-key-file) so the remote server trusts the X-Remote-* headers.
 */

/**
 * kube's availability reasons for a Service that cannot be reached; ServiceAccessError for any other resolver error,
 * FailedDiscoveryCheck for one kube only meets while dialling (an unsupported Service type).
 */
export type RemoteServiceErrorReason =
  | 'ServiceNotFound'
  | 'ServicePortError'
  | 'EndpointsNotFound'
  | 'MissingEndpoints'
  | 'ServiceAccessError'
  | 'FailedDiscoveryCheck';

/** A remote APIService's Service could not be resolved; `message` is kube's availability message for `reason`. */
export class RemoteServiceError extends Error {
  readonly reason: RemoteServiceErrorReason;
  /** What the resolver said (kube's proxy logs it; its client only sees `service unavailable`). */
  readonly resolverMessage: string;
  constructor(message: string, reason: RemoteServiceErrorReason, resolverMessage: string) {
    super(message);
    this.name = 'RemoteServiceError';
    this.reason = reason;
    this.resolverMessage = resolverMessage;
  }
}

/**
 * An APIService whose TLS settings cannot make a transport (kube's transportBuildingError, answered 500 by its proxy):
 * a caBundle without a certificate.
 */
export class RemoteTransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteTransportError';
  }
}

/** Where one request to a remote APIService goes. */
export interface RemoteTarget {
  /** `https://<address>:<port>` (no path) as the resolver gave it. */
  url: URL;
  /** Kept-alive connections with the APIService's TLS settings, shared by every request to it. */
  agent: Agent;
  /** The name the serving certificate is verified for: `<service>.<namespace>.svc`. */
  servername: string;
}

export interface RemoteTransportOptions {
  serviceResolver: ServiceResolver;
  /** The proxy client certificate (PEM) presented to remote servers; none by default. */
  proxyClientCert?: string | Buffer | undefined;
  /** Its private key (PEM). */
  proxyClientKey?: string | Buffer | undefined;
}

/** The Service reference with kube's default port (443) and the verified server name. */
function serviceOf(apiService: APIService): Required<APIServiceServiceReference> & { servername: string } {
  const service = apiService.spec?.service;
  if (!service) throw new Error(`APIService ${apiService.metadata.name ?? ''} is local (no spec.service)`);
  const namespace = service.namespace ?? '';
  const name = service.name ?? '';
  return { namespace, name, port: service.port ?? 443, servername: `${name}.${namespace}.svc` };
}

/** kube's availability message for a resolver error of the Service `service/<name>` in `<namespace>`. */
function remoteServiceError(err: unknown, namespace: string, name: string, port: number): RemoteServiceError {
  const said = err instanceof Error ? err.message : String(err);
  const svc = `service/${name} in ${goQuote(namespace)}`;
  if (err instanceof ServiceResolutionError)
    switch (err.reason) {
      case 'ServiceNotFound':
        return new RemoteServiceError(`${svc} is not present`, 'ServiceNotFound', said);
      case 'ServicePortError':
        return new RemoteServiceError(`${svc} is not listening on port ${port}`, 'ServicePortError', said);
      case 'EndpointsNotFound':
        return new RemoteServiceError(`cannot find endpoints for ${svc}`, 'EndpointsNotFound', said);
      case 'MissingEndpoints':
        return new RemoteServiceError(
          `endpoints for ${svc} have no addresses with port name ${goQuote(err.portName ?? '')}`,
          'MissingEndpoints',
          said,
        );
      case 'ServiceTypeError':
        return new RemoteServiceError(said, 'FailedDiscoveryCheck', said);
    }
  return new RemoteServiceError(`${svc} cannot be checked due to: ${said}`, 'ServiceAccessError', said);
}

/** Closes an agent's idle connections now and each busy one when its request ends (a watch may run on). */
function retire(agent: Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  agent.on('free', (socket) => socket.destroy());
}

interface CachedAgent {
  /** The APIService object it was last checked against: the informer hands on a new object with every change. */
  apiService: APIService;
  key: string;
  agent: Agent;
}

/**
 * Remote targets for APIServices, one kept-alive https.Agent per APIService, rebuilt when its service, caBundle or
 * insecureSkipTLSVerify change (the old one is closed once its requests end).
 */
export class RemoteTransport {
  readonly #resolver: ServiceResolver;
  readonly #cert: string | Buffer | undefined;
  readonly #key: string | Buffer | undefined;
  readonly #agents = new Map<string, CachedAgent>();
  #discoveryAgent: Agent | undefined;

  constructor(options: RemoteTransportOptions) {
    this.#resolver = options.serviceResolver;
    this.#cert = options.proxyClientCert;
    this.#key = options.proxyClientKey;
  }

  /** The proxy client certificate and key, when both were given. */
  get #clientCert(): { cert: string | Buffer; key: string | Buffer } | undefined {
    return this.#cert && this.#key ? { cert: this.#cert, key: this.#key } : undefined;
  }

  /**
   * The address of a remote APIService's Service, resolved anew on each call (a resolver may pick among endpoints);
   * throws a {@link RemoteServiceError}.
   */
  resolve(apiService: APIService): URL {
    return this.#resolve(serviceOf(apiService));
  }

  #resolve({ namespace, name, port }: ReturnType<typeof serviceOf>): URL {
    let url: URL;
    try {
      url = this.#resolver.resolve(namespace, name, port);
    } catch (err) {
      throw remoteServiceError(err, namespace, name, port);
    }
    return new URL(`https://${url.host}`);
  }

  /**
   * The agent for a remote APIService's connections (cached per APIService name and TLS settings); throws a
   * {@link RemoteTransportError} when its caBundle holds no certificate.
   */
  agent(apiService: APIService): Agent {
    const name = apiService.metadata.name ?? '';
    const cached = this.#agents.get(name);
    // The same object as last time has the same TLS settings: a proxied request does not rebuild the key.
    if (cached?.apiService === apiService) return cached.agent;
    const { servername } = serviceOf(apiService);
    const spec = apiService.spec ?? {};
    const insecure = spec.insecureSkipTLSVerify === true;
    const key = JSON.stringify([servername, insecure, spec.caBundle ?? '']);
    if (cached?.key === key) {
      cached.apiService = apiService;
      return cached.agent;
    }
    if (cached) retire(cached.agent);
    const ca = !insecure && spec.caBundle ? Buffer.from(spec.caBundle, 'base64') : undefined;
    // client-go's TLS config: Go's CertPool takes what parses, and none is an error (node would start the handshake).
    if (ca && !caBundleHasCertificate(ca.toString('latin1')))
      throw new RemoteTransportError('unable to load root certificates: unable to parse bytes as PEM block');
    const agent = new Agent({
      keepAlive: true,
      servername,
      rejectUnauthorized: !insecure,
      ...(ca ? { ca } : {}),
      ...this.#clientCert,
      // The proxied stream is HTTP/1.1 (upgrades included), as kube's proxy transport.
      ALPNProtocols: ['http/1.1'],
    });
    this.#agents.set(name, { apiService, key, agent });
    return agent;
  }

  /** Both at once: where to send a request for `apiService` and with which agent. */
  target(apiService: APIService): RemoteTarget {
    // The transport first, as kube's proxy: its building error is answered before the Service is resolved.
    const agent = this.agent(apiService);
    const service = serviceOf(apiService);
    return { url: this.#resolve(service), agent, servername: service.servername };
  }

  /**
   * An agent that does not verify serving certificates but presents the proxy client certificate: kube's
   * availability check's transport ("if someone owns the network and messes with your status that's not so bad").
   */
  discoveryAgent(): Agent {
    this.#discoveryAgent ??= new Agent({ keepAlive: true, rejectUnauthorized: false, ...this.#clientCert, ALPNProtocols: ['http/1.1'] });
    return this.#discoveryAgent;
  }

  /** Drops the agent of an APIService that is gone. */
  forget(name: string): void {
    const cached = this.#agents.get(name);
    if (cached) retire(cached.agent);
    this.#agents.delete(name);
  }

  /** Closes every kept-alive connection. */
  close(): void {
    for (const { agent } of this.#agents.values()) agent.destroy();
    this.#agents.clear();
    this.#discoveryAgent?.destroy();
    this.#discoveryAgent = undefined;
  }
}

import { isIP } from 'node:net';
import type { KubeObject } from '@kapi/apimachinery';

/**
 * Where a webhook's `clientConfig.service` is reached (kube's webhook.ServiceResolver). A generic control plane has no
 * Services, so the address comes from the embedder: a map given in options, or any resolver. The TLS server name
 * stays `<name>.<namespace>.svc`, as kube-apiserver verifies it.
 */
export interface ServiceResolver {
  /** The https URL whose host:port is dialled; throws when the service is unknown. */
  resolve(namespace: string, name: string, port: number): URL;
}

/** Why a Service could not be resolved: kube's availability reasons, so a caller (the aggregator) can report them. */
export type ServiceResolutionReason =
  | 'ServiceNotFound'
  | 'ServiceTypeError'
  | 'ServicePortError'
  | 'EndpointsNotFound'
  | 'MissingEndpoints';

/** A resolver's error with its reason; `portName` is the Service port's name for MissingEndpoints. */
export class ServiceResolutionError extends Error {
  readonly reason: ServiceResolutionReason;
  readonly portName: string | undefined;
  constructor(message: string, reason: ServiceResolutionReason, portName?: string) {
    super(message);
    this.name = 'ServiceResolutionError';
    this.reason = reason;
    this.portName = portName;
  }
}

/**
 * A resolver from a map. Keys are `<namespace>/<name>:<port>` or `<namespace>/<name>` (any port); values are URLs
 * (`https://127.0.0.1:8443`) whose host and port are dialled.
 */
export function mapServiceResolver(services: Readonly<Record<string, string | URL>>): ServiceResolver {
  return {
    resolve(namespace, name, port) {
      const target = services[`${namespace}/${name}:${port}`] ?? services[`${namespace}/${name}`];
      if (target === undefined)
        throw new ServiceResolutionError(
          `service "${name}" in namespace "${namespace}" (port ${port}) is not known to this server`,
          'ServiceNotFound',
        );
      return new URL(target);
    },
  };
}

/** Where Service and Endpoints objects are read (e.g. ObjectCaches), for a control plane that serves them. */
export interface ServiceEndpointsLookup {
  getService(namespace: string, name: string): KubeObject | undefined;
  getEndpoints(namespace: string, name: string): KubeObject | undefined;
}

interface ServiceSpec {
  type?: string;
  ports?: { name?: string; port?: number }[];
}
interface EndpointSubset {
  addresses?: { ip?: string }[];
  ports?: { name?: string; port?: number }[];
}

/**
 * kube's endpoint service resolver (ResolveEndpoint, the one kube-apiserver uses when it cannot reach Service IPs):
 * the Service's port `port` (ClusterIP, NodePort or LoadBalancer), then an address of its Endpoints with the port of
 * the same name, picked at random, resolved anew for each call.
 */
export function endpointsServiceResolver(lookup: ServiceEndpointsLookup): ServiceResolver {
  return {
    resolve(namespace, name, port) {
      const svc = lookup.getService(namespace, name);
      if (!svc) throw new ServiceResolutionError(`service ${JSON.stringify(name)} not found`, 'ServiceNotFound');
      const spec = (svc.spec ?? {}) as ServiceSpec;
      const type = spec.type ?? 'ClusterIP';
      if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer')
        throw new ServiceResolutionError(`unsupported service type ${JSON.stringify(type)}`, 'ServiceTypeError');
      const svcPort = (spec.ports ?? []).find((p) => p.port === port);
      if (!svcPort)
        throw new ServiceResolutionError(`no service port ${port} found for service ${JSON.stringify(name)}`, 'ServicePortError');
      const eps = lookup.getEndpoints(namespace, name);
      if (!eps) throw new ServiceResolutionError(`endpoints ${JSON.stringify(name)} not found`, 'EndpointsNotFound');
      const portName = svcPort.name ?? '';
      for (const ss of (eps.subsets ?? []) as EndpointSubset[])
        for (const p of ss.ports ?? []) {
          if ((p.name ?? '') !== portName) continue;
          const addresses = (ss.addresses ?? []).filter((a) => a.ip);
          if (addresses.length === 0) continue;
          const ip = addresses[Math.floor(Math.random() * addresses.length)]?.ip as string;
          return new URL(`https://${isIP(ip) === 6 ? `[${ip}]` : ip}:${p.port}`);
        }
      throw new ServiceResolutionError(`no endpoints available for service ${JSON.stringify(name)}`, 'MissingEndpoints', portName);
    },
  };
}

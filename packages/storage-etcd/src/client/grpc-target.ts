import { isIPv4, isIPv6 } from 'node:net';

const DEFAULT_PORT = '2379';

/**
 * The gRPC target for a list of etcd client URLs ("http://host:port"). One endpoint: its host and port (names are
 * resolved by DNS). Several: an `ipv4:` / `ipv6:` address list, which gRPC's pick_first walks when a member is down;
 * names cannot be listed that way, so several endpoints must be IP addresses of one family.
 */
export function grpcTarget(endpoints: readonly string[]): string {
  if (endpoints.length === 0) throw new Error('EtcdStorage: at least one endpoint is required');
  const hosts = endpoints.map(parseEndpoint);
  if (hosts.length === 1) {
    const [h] = hosts as [Endpoint];
    return `dns:${isIPv6(h.host) ? `[${h.host}]` : h.host}:${h.port}`;
  }
  if (hosts.every((h) => isIPv4(h.host))) return `ipv4:${hosts.map((h) => `${h.host}:${h.port}`).join(',')}`;
  if (hosts.every((h) => isIPv6(h.host))) return `ipv6:${hosts.map((h) => `[${h.host}]:${h.port}`).join(',')}`;
  throw new Error(`EtcdStorage: several endpoints must all be IPv4 or all IPv6 addresses, got ${endpoints.join(', ')}`);
}

interface Endpoint {
  host: string;
  port: string;
}

function parseEndpoint(endpoint: string): Endpoint {
  let url: URL;
  try {
    url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
  } catch {
    throw new Error(`EtcdStorage: invalid endpoint ${JSON.stringify(endpoint)}`);
  }
  if (url.protocol !== 'http:') {
    throw new Error(`EtcdStorage: endpoint ${JSON.stringify(endpoint)}: only http:// endpoints are supported (no TLS yet)`);
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: url.port || DEFAULT_PORT };
}

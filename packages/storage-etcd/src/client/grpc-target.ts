import { isIPv6 } from 'node:net';

const DEFAULT_PORT = '2379';

/**
 * The gRPC target of one etcd client URL ("http://host:port", port 2379 when left out): its host and port, a name
 * resolved by gRPC's DNS resolver (which resolves it again when the connection is lost).
 */
export function grpcTarget(endpoint: string): string {
  const { host, port } = parseEndpoint(endpoint);
  return `dns:${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

function parseEndpoint(endpoint: string): { host: string; port: string } {
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

import { isIPv6 } from 'node:net';

const DEFAULT_PORT = '2379';

/** One etcd client URL as the client dials it. */
export interface EtcdEndpoint {
  /** The URL as given, for messages. */
  url: string;
  /** The gRPC target: `dns:host:port`, resolved by gRPC's DNS resolver (again when the connection is lost). */
  target: string;
  /** `https://`: the member is dialled with TLS. */
  tls: boolean;
}

/**
 * Parses an etcd client URL (`http://host:port` or `https://host:port`, port 2379 when left out; a bare `host:port`
 * is http), as kube-apiserver's --etcd-servers takes them.
 */
export function etcdEndpoint(endpoint: string): EtcdEndpoint {
  let url: URL;
  try {
    url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
  } catch {
    throw new Error(`EtcdStorage: invalid endpoint ${JSON.stringify(endpoint)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`EtcdStorage: endpoint ${JSON.stringify(endpoint)}: only http:// and https:// endpoints are supported`);
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port || DEFAULT_PORT;
  return { url: endpoint, target: `dns:${isIPv6(host) ? `[${host}]` : host}:${port}`, tls: url.protocol === 'https:' };
}

import { isIPv6 } from 'node:net';

/** What an `etcd://` (or `etcds://`) storage URL names: etcd client URLs and the key prefix. */
export interface EtcdURL {
  /** `http://host:port` (`https://` for `etcds://`) for each member, in the order given (as kube-apiserver's --etcd-servers). */
  endpoints: string[];
  /** The key prefix ('' when the URL has no path), as EtcdStorageOptions.prefix. */
  prefix: string;
}

const DEFAULT_PORT = 2379;

/**
 * Parses `etcd://host1[:port],host2[:port],…[/prefix]` (port 2379 when left out; IPv6 hosts in brackets) into
 * EtcdStorage's endpoints and prefix. `etcds://` is the same over TLS: https:// endpoints (the CA and client
 * certificate are EtcdStorage's `tls` option; as `rediss://` is to `redis://`). Anything else is refused with an
 * error saying what is wrong.
 *
 * @example
 * parseEtcdURL('etcd://10.0.0.1:2379,10.0.0.2,10.0.0.3/kapi');
 * // { endpoints: ['http://10.0.0.1:2379', 'http://10.0.0.2:2379', 'http://10.0.0.3:2379'], prefix: '/kapi' }
 * parseEtcdURL('etcds://etcd-0.example/kapi');
 * // { endpoints: ['https://etcd-0.example:2379'], prefix: '/kapi' }
 */
export function parseEtcdURL(url: string): EtcdURL {
  const bad = (why: string) => new Error(`invalid etcd URL ${JSON.stringify(url)}: ${why}`);
  const scheme = url.startsWith('etcd://') ? 'etcd://' : url.startsWith('etcds://') ? 'etcds://' : undefined;
  if (!scheme) throw bad('it must start with etcd:// (or etcds:// for TLS)');
  const http = scheme === 'etcds://' ? 'https://' : 'http://';
  if (/[?#]/.test(url)) throw bad('a query or fragment is not allowed');
  const rest = url.slice(scheme.length);
  const slash = rest.indexOf('/');
  const hosts = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  if (!hosts) throw bad(`no host given (${scheme}host:port,host:port/prefix)`);
  if (hosts.includes('@')) throw bad('user information is not supported');
  const endpoints = hosts.split(',').map((h) => `${http}${hostPort(h, bad)}`);
  const dup = endpoints.find((e, i) => endpoints.indexOf(e) !== i);
  if (dup) throw bad(`${dup.slice(http.length)} is listed twice`);
  return { endpoints, prefix: path.length > 1 ? path.replace(/\/+$/, '') : '' };
}

/** One `host[:port]` of the list, checked and with its port filled in. */
function hostPort(item: string, bad: (why: string) => Error): string {
  if (!item) throw bad('an empty host in the list (a stray comma?)');
  let host: string;
  let port: string | undefined;
  if (item.startsWith('[')) {
    const close = item.indexOf(']');
    host = item.slice(1, close);
    if (close < 0 || !isIPv6(host)) throw bad(`${JSON.stringify(item)} is not a bracketed IPv6 address`);
    const after = item.slice(close + 1);
    if (after && !after.startsWith(':')) throw bad(`unexpected ${JSON.stringify(after)} after ${item.slice(0, close + 1)}`);
    port = after ? after.slice(1) : undefined;
  } else {
    const colon = item.indexOf(':');
    if (colon >= 0 && item.indexOf(':', colon + 1) >= 0) throw bad(`${JSON.stringify(item)}: put an IPv6 address in brackets`);
    host = colon < 0 ? item : item.slice(0, colon);
    port = colon < 0 ? undefined : item.slice(colon + 1);
    if (!/^[A-Za-z0-9.-]+$/.test(host)) throw bad(`${JSON.stringify(host)} is not a host name or address`);
  }
  const n = port === undefined ? DEFAULT_PORT : /^[0-9]{1,5}$/.test(port) ? Number(port) : Number.NaN;
  if (!(n >= 1 && n <= 65535)) throw bad(`${JSON.stringify(port)} is not a port (1-65535) in ${JSON.stringify(item)}`);
  return `${item.startsWith('[') ? `[${host}]` : host.toLowerCase()}:${n}`;
}

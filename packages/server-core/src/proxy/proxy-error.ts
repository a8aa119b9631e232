import type { ServerResponse } from 'node:http';

/** A node network or TLS error as the proxy sees it. */
interface NetError extends Error {
  code?: string;
  address?: string;
  port?: number;
  host?: string;
  hostname?: string;
}

/** Why a proxied request failed before the remote answered, worded as Go's transport words it. */
export class ProxyError extends Error {
  /** node's error code (ECONNREFUSED, UNABLE_TO_VERIFY_LEAF_SIGNATURE…), or the proxy's own (PROXY_TIMEOUT, PROXY_UPGRADE…). */
  readonly code: string;
  constructor(message: string, code: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ProxyError';
    this.code = code;
  }
}

const X509_UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

/**
 * Go's text for a dial or TLS failure of `dialled` (`host:port`): what kube's proxies answer with (kube-aggregator's
 * responder writes err.Error()), e.g. `dial tcp 127.0.0.1:8443: connect: connection refused`.
 */
export function proxyErrorOf(err: unknown, dialled: string): ProxyError {
  if (err instanceof ProxyError) return err;
  const e = (err instanceof Error ? err : new Error(String(err))) as NetError;
  const code = e.code ?? '';
  const addr = e.address ? `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port ?? ''}` : dialled;
  const tls = (reason: string) => new ProxyError(`tls: failed to verify certificate: x509: ${reason}`, code, err);
  switch (code) {
    case 'ECONNREFUSED':
      return new ProxyError(`dial tcp ${addr}: connect: connection refused`, code, err);
    case 'ETIMEDOUT':
      return new ProxyError(`dial tcp ${addr}: i/o timeout`, code, err);
    case 'EHOSTUNREACH':
      return new ProxyError(`dial tcp ${addr}: connect: no route to host`, code, err);
    case 'ENETUNREACH':
      return new ProxyError(`dial tcp ${addr}: connect: network is unreachable`, code, err);
    case 'ENOTFOUND':
      return new ProxyError(`dial tcp: lookup ${e.hostname ?? dialled}: no such host`, code, err);
    case 'ECONNRESET':
      return new ProxyError(e.message === 'socket hang up' ? 'EOF' : `read tcp ${dialled}: read: connection reset by peer`, code, err);
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return tls('certificate has expired or is not yet valid');
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      // node: "Hostname/IP does not match certificate's altnames: Host: x. is not in the cert's altnames: DNS:a, DNS:b"
      return tls(altNameMessage(e.message));
  }
  if (X509_UNKNOWN_AUTHORITY.has(code)) return tls('certificate signed by unknown authority');
  return new ProxyError(e.message, code, err);
}

/** Go's "certificate is valid for a, b, not x" from node's altname message. */
function altNameMessage(message: string): string {
  const host = /Host: ([^ ]+?)\.? is not/.exec(message)?.[1];
  const names = /altnames: (.*)$/.exec(message)?.[1];
  if (!host || !names) return message;
  const valid = names.split(', ').map((n) => n.replace(/^(DNS|IP Address):/, ''));
  return `certificate is valid for ${valid.join(', ')}, not ${host}`;
}

/**
 * kube-aggregator's responder (and http.Error): the error's text as `text/plain`, 503 unless told. Nothing is
 * written when the response has started (the connection is cut instead).
 */
export function writeProxyError(res: ServerResponse, message: string, code = 503): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${message}\n`;
  res.statusCode = code;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

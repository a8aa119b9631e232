import { status } from '@grpc/grpc-js';

/** What a failed TLS handshake says (Node's verification errors, OpenSSL's alerts), and what to check for it. */
const CAUSES: { test: RegExp; hint: string }[] = [
  {
    // An alert from etcd about this client's certificate (Go's TLS server sends bad_certificate for most of these).
    test: /alert (bad certificate|certificate required|unknown ca|certificate expired|certificate unknown|certificate revoked|unsupported certificate|access denied)/,
    hint: "etcd refused the client certificate: none was given (tls.cert and tls.key; kube-apiserver's --etcd-certfile and --etcd-keyfile), or it is expired, not for client authentication, or not signed by a CA in etcd's --trusted-ca-file",
  },
  {
    test: /Hostname\/IP does not match|ERR_TLS_CERT_ALTNAME/,
    hint: "etcd's serving certificate does not name the endpoint's host among its subject alternative names",
  },
  {
    test: /certificate has expired|certificate is not yet valid/,
    hint: "etcd's serving certificate is outside its validity period",
  },
  {
    test: /unable to verify|self[- ]signed certificate|unable to get (local )?issuer|certificate signature failure/,
    hint: "etcd's serving certificate is not signed by a CA in tls.ca (kube-apiserver's --etcd-cafile)",
  },
  {
    // What a plaintext server does to a TLS client: closes the connection (etcd's Go server, under load, resets it
    // before any answer), or answers bytes that are not TLS.
    test: /disconnected before secure TLS connection|wrong version number|packet length too long|No connection established\. Last error: (?:Error: )?read ECONNRESET/,
    hint: 'the member closed the connection or answered without TLS: is it serving TLS? (an http:// endpoint is for a plaintext etcd)',
  },
];

/**
 * A call that failed because no TLS connection could be made: UNAVAILABLE still (the storage's Unreachable), but
 * with a message naming the member, the handshake error and what to check, instead of grpc-js's "No connection
 * established. Last error: …".
 */
export class EtcdTLSError extends Error {
  readonly code = status.UNAVAILABLE;
  readonly details: string;

  constructor(endpoint: string, reason: string, hint: string, cause: unknown) {
    const details = `TLS handshake with etcd at ${endpoint} failed (${reason}): ${hint}`;
    super(`${status.UNAVAILABLE} UNAVAILABLE: ${details}`, { cause });
    this.name = 'EtcdTLSError';
    this.details = details;
  }
}

/** `err` explained as an EtcdTLSError when it is a failed TLS handshake with `endpoint`; else `err` itself. */
export function explainTLSFailure(err: unknown, endpoint: string): unknown {
  const e = err as { code?: unknown; details?: unknown } | null;
  if (e?.code !== status.UNAVAILABLE || typeof e.details !== 'string') return err;
  const cause = CAUSES.find((c) => c.test.test(e.details as string));
  if (!cause) return err;
  return new EtcdTLSError(endpoint, handshakeReason(e.details), cause.hint, err);
}

/** The handshake error out of grpc-js's details: OpenSSL's "ssl/tls alert …", or Node's message up to grpc-js's notes. */
function handshakeReason(details: string): string {
  const alert = /ssl\/tls alert [a-z ]+/.exec(details);
  if (alert) return alert[0];
  const last = /Last error: (?:Error: )?(.*?)(?:; if the root CA|\s*\(\d{4}-\d\d-\d\dT|\s*Resolution note:|$)/s.exec(details);
  return (last?.[1] ?? details).trim().replace(/\.$/, '');
}

import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

/**
 * The certificates the TLS client presented, leaf first, then the rest of the chain it sent (untrusted: only
 * candidates for intermediates). Empty when there is no TLS socket or the client sent no certificate.
 */
export function peerCertificates(socket: TLSSocket | undefined): X509Certificate[] {
  if (!socket || typeof socket.getPeerCertificate !== 'function') return [];
  let cur: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  const out: X509Certificate[] = [];
  const seen = new Set<string>();
  // Node links each certificate to its issuer; a self-signed one links to itself.
  while (cur?.raw && !seen.has(cur.fingerprint256)) {
    seen.add(cur.fingerprint256);
    out.push(new X509Certificate(cur.raw));
    cur = cur.issuerCertificate;
  }
  return out;
}

/** The values of a subject attribute (e.g. CN, O) of a certificate, in order. */
export function subjectValues(cert: X509Certificate, attribute: string): string[] {
  const value = (cert.toLegacyObject().subject as unknown as Record<string, string | string[] | undefined> | undefined)?.[attribute];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

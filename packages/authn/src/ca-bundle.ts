import { X509Certificate } from 'node:crypto';

/**
 * A set of CA certificates that may change while the server runs (kube's dynamiccertificates.CAContentProvider):
 * authenticators verify against `certificates()` on every request; a TLS server advertises `pem()` as the
 * acceptable client CAs and listens with `onChange` to update its handshake.
 */
export interface CABundle {
  /** The current certificates, parsed. */
  certificates(): readonly X509Certificate[];
  /** The current bundle as PEM text. */
  pem(): string;
  /** Calls `listener` after the content changed; returns a function that stops it. */
  onChange(listener: () => void): () => void;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificates of a PEM bundle, as kube's cert.ParseCertsPEM: every CERTIFICATE block parsed (other blocks
 * skipped); an unparsable block or none at all is an error naming `source`.
 */
export function parseCABundle(text: string | Buffer, source = '<inline>'): X509Certificate[] {
  const blocks = text.toString().match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error(`${source}: data does not contain any valid RSA or ECDSA certificates`);
  return blocks.map((pem, i) => {
    try {
      return new X509Certificate(pem);
    } catch (err) {
      throw new Error(`${source}: certificate ${i + 1} is not valid: ${(err as Error).message}`);
    }
  });
}

/** A bundle that never changes (kube's --client-ca-file read once, or CA data given inline). */
export function staticCABundle(text: string | Buffer, source?: string): CABundle {
  const certs = parseCABundle(text, source);
  const pem = certs.map((c) => c.toString()).join('');
  return { certificates: () => certs, pem: () => pem, onChange: () => () => {} };
}

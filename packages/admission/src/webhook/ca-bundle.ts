import { X509Certificate } from 'node:crypto';

/**
 * Go's CertPool.AppendCertsFromPEM on a webhook's caBundle: true when at least one CERTIFICATE block parses. kube
 * builds the webhook's REST client from it and fails the call when none does ("could not get REST client: unable to
 * load root certificates: unable to parse bytes as PEM block"); node would instead start the handshake and report an
 * unknown authority. Checked where the client is built (once per client configuration), as kube does.
 */
export function caBundleHasCertificate(pem: string): boolean {
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)) {
    try {
      new X509Certificate(m[0]);
      return true;
    } catch {
      // Go skips a block that does not parse.
    }
  }
  return false;
}

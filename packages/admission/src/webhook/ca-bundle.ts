import { X509Certificate } from 'node:crypto';

const checked = new Map<string, boolean>();

/**
 * Go's CertPool.AppendCertsFromPEM on a webhook's caBundle: true when at least one CERTIFICATE block parses. kube
 * builds the webhook's REST client from it and fails the call when none does ("could not get REST client: unable to
 * load root certificates: unable to parse bytes as PEM block"); node would instead start the handshake and report an
 * unknown authority. Answers are remembered per bundle (a configuration's bundles are few and reused on every call).
 */
export function caBundleHasCertificate(caBundle: string): boolean {
  let ok = checked.get(caBundle);
  if (ok !== undefined) return ok;
  ok = false;
  const pem = Buffer.from(caBundle, 'base64').toString('latin1');
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)) {
    try {
      new X509Certificate(m[0]);
      ok = true;
      break;
    } catch {
      // Go skips a block that does not parse.
    }
  }
  if (checked.size > 1000) checked.clear();
  checked.set(caBundle, ok);
  return ok;
}

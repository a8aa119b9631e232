import { X509Certificate } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ClientCertificateAuthority, clientCertificateAuthority, issueClientCertificate } from '@kapi/server-core';

/** kube's --proxy-client-cert-file CN (kubeadm's front-proxy-client), the one name --requestheader-allowed-names lists. */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';

/** The aggregator's identity towards aggregated servers and the CA that vouches for it. */
export interface FrontProxyCredentials {
  /** The front-proxy CA (kubeadm's front-proxy-ca.crt): trusted for request-header authentication. */
  ca: ClientCertificateAuthority;
  /** The proxy client certificate and key (PEM) presented to aggregated servers. */
  cert: string;
  key: string;
}

/** The certificate at `certPath` if it is currently valid and signed by `ca`. */
async function reusable(
  certPath: string,
  keyPath: string,
  ca: ClientCertificateAuthority,
): Promise<{ cert: string; key: string } | undefined> {
  try {
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    const parsed = new X509Certificate(cert);
    const now = Date.now();
    const caCert = new X509Certificate(ca.cert);
    if (
      Date.parse(parsed.validFrom) <= now &&
      now < Date.parse(parsed.validTo) &&
      parsed.checkIssued(caCert) &&
      parsed.verify(caCert.publicKey)
    )
      return { cert, key };
  } catch {
    // Missing or unusable: issue a new one.
  }
  return undefined;
}

/**
 * kubeadm's front-proxy PKI in `<dir>`: a CA (`client-ca.crt`/`.key`, created the first time) and a client certificate
 * for CN front-proxy-client (`front-proxy-client.crt`/`.key`, reissued when missing, expired or not the CA's). The
 * control plane trusts the CA for X-Remote-* headers and publishes it in extension-apiserver-authentication; its
 * aggregator presents the certificate to aggregated servers.
 */
export async function frontProxyCredentials(dir: string): Promise<FrontProxyCredentials> {
  const ca = await clientCertificateAuthority({ dir });
  const certPath = join(dir, `${FRONT_PROXY_CLIENT}.crt`);
  const keyPath = join(dir, `${FRONT_PROXY_CLIENT}.key`);
  const existing = await reusable(certPath, keyPath, ca);
  if (existing) return { ca, ...existing };
  const issued = await issueClientCertificate(ca, { user: FRONT_PROXY_CLIENT });
  await writeFile(keyPath, issued.key, { mode: 0o600 });
  await chmod(keyPath, 0o600);
  await writeFile(certPath, issued.cert, { mode: 0o644 });
  return { ca, cert: issued.cert, key: issued.key };
}

import type { X509Certificate } from 'node:crypto';
import type { CABundle } from './ca-bundle.ts';

/** OIDs of the extended key usages a client certificate may carry (Go's ExtKeyUsageClientAuth, ExtKeyUsageAny). */
export const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
export const EKU_ANY = '2.5.29.37.0';

/** Go's limits on chain building work: no real chain is this long or needs this many signature checks. */
const MAX_DEPTH = 10;
const MAX_SIGNATURE_CHECKS = 100;

/** How an error names the certificate it could not verify (kube's certificateIdentifier gives the serial too). */
export function certificateIdentifier(cert: X509Certificate): string {
  return `SN=${BigInt(`0x${cert.serialNumber}`).toString()}, subject="${cert.subject.replaceAll('\n', ', ')}", issuer="${cert.issuer.replaceAll('\n', ', ')}"`;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Go's Certificate.isValid for time: `now` within [notBefore, notAfter]. */
function checkValidity(cert: X509Certificate, now: number): void {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (now < from) throw new Error(`x509: certificate has expired or is not yet valid: current time ${iso(now)} is before ${iso(from)}`);
  if (now > to) throw new Error(`x509: certificate has expired or is not yet valid: current time ${iso(now)} is after ${iso(to)}`);
}

/** Go's checkChainForKeyUsage: every certificate with an EKU extension must allow `usage` (or any). */
function allowsUsage(chain: readonly X509Certificate[], usage: string): boolean {
  return chain.every((c) => {
    const eku = c.keyUsage as string[] | undefined;
    return eku === undefined || eku.length === 0 || eku.includes(usage) || eku.includes(EKU_ANY);
  });
}

/**
 * Go's x509.Certificate.Verify as kube's x509 authenticator calls it: builds a chain from `leaf` through the
 * (untrusted) `intermediates` the peer sent to one of `roots`, every certificate valid at `now`, every
 * intermediate a CA, and every certificate's extended key usage allowing `usage` (client auth by default).
 * Returns the verified chain (leaf first); throws Go's error when there is none.
 */
export function verifyCertificateChain(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  roots: readonly X509Certificate[],
  now: number,
  usage: string = EKU_CLIENT_AUTH,
): X509Certificate[] {
  checkValidity(leaf, now);
  const chains: X509Certificate[][] = [];
  let lastError: Error | undefined;
  const isRoot = (c: X509Certificate): boolean => roots.some((r) => r.fingerprint256 === c.fingerprint256);
  // A client may send many certificates that name each other: bound the signature checks as Go does.
  let signatureChecks = 0;
  /** `parent` issued `child`: names (and key identifiers) match and `parent`'s key verifies the signature. */
  const issued = (parent: X509Certificate, child: X509Certificate): boolean => {
    // Node: `cert.checkIssued(other)` asks whether `other` issued `cert`.
    if (!child.checkIssued(parent)) return false;
    if (++signatureChecks > MAX_SIGNATURE_CHECKS)
      throw new Error('x509: signature check attempts limit reached while verifying certificate chain');
    return child.verify(parent.publicKey);
  };

  const build = (path: X509Certificate[]): void => {
    const current = path[path.length - 1] as X509Certificate;
    if (isRoot(current)) {
      chains.push(path);
      return;
    }
    if (path.length > MAX_DEPTH) return;
    for (const root of roots) {
      if (!issued(root, current)) continue;
      try {
        checkValidity(root, now);
        chains.push([...path, root]);
      } catch (err) {
        lastError = err as Error;
      }
    }
    for (const inter of intermediates) {
      if (path.some((c) => c.fingerprint256 === inter.fingerprint256) || !issued(inter, current)) continue;
      try {
        checkValidity(inter, now);
        if (!inter.ca) throw new Error('x509: certificate is not authorized to sign other certificates');
      } catch (err) {
        lastError = err as Error;
        continue;
      }
      build([...path, inter]);
    }
  };
  build([leaf]);

  if (chains.length === 0) throw lastError ?? new Error('x509: certificate signed by unknown authority');
  const good = chains.find((chain) => allowsUsage(chain, usage));
  if (!good) throw new Error('x509: certificate specifies an incompatible key usage');
  return good;
}

/** Verifies a presented client chain against `ca` for client auth; throws kube's error naming the certificate. */
export function verifyClientCertificate(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  ca: CABundle,
  now: number,
): X509Certificate[] {
  try {
    return verifyCertificateChain(leaf, intermediates, ca.certificates(), now, EKU_CLIENT_AUTH);
  } catch (err) {
    throw new Error(`verifying certificate ${certificateIdentifier(leaf)} failed: ${(err as Error).message}`);
  }
}

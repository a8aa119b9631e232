import { createPrivateKey, X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';

/** PEM texts for serving TLS. */
export interface ServingCertificate {
  /** The serving certificate followed by the CA that signed it (a chain, as kube writes apiserver.crt). */
  cert: string;
  /** The serving certificate's private key. */
  key: string;
  /** The CA certificate a client (kubeconfig `certificate-authority-data`) should trust. */
  ca: string;
}

export interface SelfSignedOptions {
  /** Directory holding (or to receive) apiserver.crt and apiserver.key; nothing is written without it. */
  dir?: string;
  /** Extra DNS names for the certificate; the first one also names it (CN). localhost is always included. */
  hosts?: readonly string[];
  /** Extra IP addresses; 127.0.0.1 and ::1 are always included. 0.0.0.0 and :: are skipped. */
  ips?: readonly string[];
  /** Validity; default one year, as kube's self-signed certs. */
  validityDays?: number;
  /** Injected clock (ms since epoch) for the validity window and names. */
  now?: () => number;
}

const CERT_FILE = 'apiserver.crt';
const KEY_FILE = 'apiserver.key';
const DAY_MS = 24 * 60 * 60 * 1000;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

/**
 * A serving certificate for a server that has none configured, as kube-apiserver's
 * MaybeDefaultWithSelfSignedCerts + client-go's GenerateSelfSignedCertKey do: a self-signed CA
 * (`kapi-ca@<unix time>`) and a serving certificate it signs (`<host>@<unix time>`, serverAuth, SANs
 * localhost, 127.0.0.1, ::1 and the given names), valid from an hour ago for a year. kapi uses ECDSA P-256
 * keys where kube uses RSA 2048. The CA's key is thrown away, as kube does.
 *
 * With `dir`, an existing apiserver.crt/apiserver.key pair is reused when the key matches, the certificate is
 * currently valid and covers every requested name and address; otherwise a new pair is written there (the key
 * with mode 0600).
 */
export async function selfSignedServingCertificate(options: SelfSignedOptions = {}): Promise<ServingCertificate> {
  const now = options.now ?? Date.now;
  // A name passed among the IPs (e.g. a bind address "localhost") is kept as a DNS name, and vice versa.
  const names = [...(options.hosts ?? []), ...(options.ips ?? [])];
  const dnsNames = unique(['localhost', ...names.filter((n) => isIP(n) === 0)]);
  const ips = unique(['127.0.0.1', '::1', ...names.filter((n) => isIP(n) !== 0 && n !== '0.0.0.0' && n !== '::')]);

  if (options.dir) {
    const existing = await readExisting(options.dir, dnsNames, ips, now());
    if (existing) return existing;
  }
  const generated = await generate(dnsNames[1] ?? 'localhost', dnsNames, ips, now(), options.validityDays ?? 365);
  if (options.dir) {
    await mkdir(options.dir, { recursive: true });
    await writeFile(join(options.dir, CERT_FILE), generated.cert, { mode: 0o644 });
    const keyPath = join(options.dir, KEY_FILE);
    await writeFile(keyPath, generated.key, { mode: 0o600 });
    // writeFile's mode only applies to a new file.
    await chmod(keyPath, 0o600);
  }
  return generated;
}

async function generate(host: string, dnsNames: string[], ips: string[], nowMs: number, validityDays: number): Promise<ServingCertificate> {
  const x509 = await loadX509();
  const subtle = webcrypto.subtle;
  const unix = Math.floor(nowMs / 1000);
  // Valid an hour earlier to avoid flakes due to clock skew (kube's comment).
  const notBefore = new Date(nowMs - 60 * 60 * 1000);
  const notAfter = new Date(notBefore.getTime() + validityDays * DAY_MS);

  const caKeys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const ca = await selfSignedCA(x509, { serialNumber: '01', cn: `kapi-ca@${unix}`, keys: caKeys, notBefore, notAfter });

  const keys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const serving = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: [{ CN: [`${host}@${unix}`] }],
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const pkcs8 = Buffer.from(await subtle.exportKey('pkcs8', keys.privateKey));
  // SEC1 "EC PRIVATE KEY", what Go's keyutil writes for an ECDSA key.
  const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'sec1' }).toString();
  const caPem = pemOf(ca);
  return { cert: pemOf(serving) + caPem, key, ca: caPem };
}

/** Reads dir's pair if it is usable for these names at `nowMs`; undefined otherwise. */
async function readExisting(dir: string, dnsNames: string[], ips: string[], nowMs: number): Promise<ServingCertificate | undefined> {
  let cert: string;
  let key: string;
  try {
    [cert, key] = await Promise.all([readFile(join(dir, CERT_FILE), 'utf8'), readFile(join(dir, KEY_FILE), 'utf8')]);
  } catch {
    return undefined;
  }
  try {
    const chain = splitPem(cert).map((pem) => new NodeX509Certificate(pem));
    const leaf = chain[0];
    if (!leaf) return undefined;
    if (!leaf.checkPrivateKey(createPrivateKey(key))) return undefined;
    if (Date.parse(leaf.validFrom) > nowMs || Date.parse(leaf.validTo) <= nowMs) return undefined;
    for (const name of dnsNames) if (leaf.checkHost(name, { subject: 'never' }) === undefined) return undefined;
    for (const ip of ips) if (leaf.checkIP(ip) === undefined) return undefined;
    // The CA to trust: the last certificate of the chain (the leaf itself when it stands alone).
    const ca = chain[chain.length - 1] as NodeX509Certificate;
    return { cert, key, ca: ca.toString() };
  } catch {
    return undefined;
  }
}

let x509Module: Promise<typeof X509> | undefined;

/**
 * @peculiar/x509 resolves its algorithms through tsyringe, which needs a Reflect metadata polyfill before it
 * loads; both are imported on first use only, so servers without self-signed certs never load them.
 */
export function loadX509(): Promise<typeof X509> {
  x509Module ??= import('reflect-metadata').then(() => {
    return import('@peculiar/x509');
  });
  return x509Module;
}

/** A self-signed CA certificate (ECDSA P-256, CA basic constraints, certificate signing): the serving and client CAs. */
export async function selfSignedCA(
  x509: typeof X509,
  o: { serialNumber: string; cn: string; keys: webcrypto.CryptoKeyPair; notBefore: Date; notAfter: Date },
): Promise<X509.X509Certificate> {
  return x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: o.serialNumber,
    name: [{ CN: [o.cn] }],
    notBefore: o.notBefore,
    notAfter: o.notAfter,
    keys: o.keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(o.keys.publicKey),
    ],
  });
}

/** A certificate as PEM ending in a newline, ready to concatenate into a bundle. */
export function pemOf(cert: X509.X509Certificate): string {
  const pem = cert.toString('pem');
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

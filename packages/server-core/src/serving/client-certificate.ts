import { createPrivateKey, X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadX509, pemOf, selfSignedCA } from './self-signed.ts';

/** A CA that issues client certificates: PEM certificate and key, and where the certificate is kept. */
export interface ClientCertificateAuthority {
  cert: string;
  key: string;
  /** `<dir>/client-ca.crt`: what the server trusts (kube's --client-ca-file). */
  certPath: string;
}

export interface ClientCAOptions {
  /** Directory holding (or to receive) client-ca.crt and client-ca.key. */
  dir: string;
  /** Validity of a new CA; default ten years (kubeadm's CA lifetime). */
  validityDays?: number;
  now?: () => number;
}

export interface ClientCertificateOptions {
  /** The user name (subject CN). */
  user: string;
  /** The groups (subject O values). */
  groups?: readonly string[];
  /** Default one year (kubeadm's client certificates). */
  validityDays?: number;
  now?: () => number;
}

const CA_CERT = 'client-ca.crt';
const CA_KEY = 'client-ca.key';
const DAY_MS = 24 * 60 * 60 * 1000;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

/**
 * The client CA of a data directory, created the first time (a self-signed ECDSA P-256 CA `kapi-client-ca@<unix
 * time>`, key mode 0600) and reused while its key matches and it is valid: the CA a server trusts for client
 * certificates and that {@link issueClientCertificate} signs with, as kubeadm's ca.crt/ca.key.
 */
export async function clientCertificateAuthority(options: ClientCAOptions): Promise<ClientCertificateAuthority> {
  const now = options.now ?? Date.now;
  const certPath = join(options.dir, CA_CERT);
  const keyPath = join(options.dir, CA_KEY);
  try {
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    const parsed = new NodeX509Certificate(cert);
    const valid = Date.parse(parsed.validFrom) <= now() && now() < Date.parse(parsed.validTo);
    if (parsed.ca && valid && parsed.checkPrivateKey(createPrivateKey(key))) return { cert, key, certPath };
  } catch {
    // Missing or unusable: make a new one.
  }
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(now() - 60 * 60 * 1000);
  const ca = await selfSignedCA(x509, {
    serialNumber: randomSerial(),
    cn: `kapi-client-ca@${Math.floor(now() / 1000)}`,
    keys,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (options.validityDays ?? 3650) * DAY_MS),
  });
  const cert = pemOf(ca);
  const key = await pemKey(keys.privateKey);
  await mkdir(options.dir, { recursive: true });
  await writeFile(keyPath, key, { mode: 0o600 });
  await chmod(keyPath, 0o600);
  await writeFile(certPath, cert, { mode: 0o644 });
  return { cert, key, certPath };
}

/**
 * A client certificate `ca` signs for `user` in `groups` (CN and O, as kube's x509 authenticator reads them): ECDSA
 * P-256, extended key usage clientAuth, valid from an hour ago (clock skew). PEM certificate and key.
 */
export async function issueClientCertificate(
  ca: Pick<ClientCertificateAuthority, 'cert' | 'key'>,
  options: ClientCertificateOptions,
): Promise<{ cert: string; key: string }> {
  const x509 = await loadX509();
  const now = (options.now ?? Date.now)();
  const caCert = new x509.X509Certificate(ca.cert);
  const der = createPrivateKey(ca.key).export({ format: 'der', type: 'pkcs8' });
  const signingKey = await webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign']);
  const caPublic = await caCert.publicKey.export(EC, ['verify']);
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(now - 60 * 60 * 1000);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: [{ CN: [options.user] }, ...(options.groups ?? []).map((g) => ({ O: [g] }))],
    issuer: caCert.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (options.validityDays ?? 365) * DAY_MS),
    publicKey: keys.publicKey,
    signingKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caPublic),
    ],
  });
  return { cert: pemOf(cert), key: await pemKey(keys.privateKey) };
}

/** A positive 128-bit serial number in hex (RFC 5280 allows up to 20 octets; the top bit clear keeps it positive). */
function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] as number) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

async function pemKey(key: webcrypto.CryptoKey): Promise<string> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }).toString();
}

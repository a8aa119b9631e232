import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface TestCertificate {
  cert: string;
  key: string;
}

export interface IssueOptions {
  /** The certificate's common name. */
  cn: string;
  /**
   * serverAuth (with SANs), clientAuth, or both (with SANs): etcd with --client-cert-auth needs both on its serving
   * certificate, which its HTTP gateway (/v3/…) presents when it dials etcd's own gRPC port.
   */
  usage: 'server' | 'client' | 'server-and-client';
  /** IP SANs of a serving certificate (default 127.0.0.1). */
  ips?: readonly string[];
  /** DNS SANs of a serving certificate (default localhost). */
  dnsNames?: readonly string[];
  /** Validity (default from a minute ago for an hour): a test of expired certificates sets both in the past. */
  notBefore?: Date;
  notAfter?: Date;
}

/** A CA made for one test run: its certificate (PEM, what a client or server trusts) and `issue` for leaf certificates. */
export interface TestCA {
  readonly pem: string;
  issue(opts: IssueOptions): Promise<TestCertificate>;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const HOUR_MS = 3_600_000;

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
}

/**
 * Dev-only: a self-signed ECDSA P-256 CA valid for an hour that signs serving and client certificates, so tests can
 * start TLS servers (etcd with --client-cert-auth) without certificate files in the repo.
 */
export async function makeTestCA(cn: string): Promise<TestCA> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${cn}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + HOUR_MS),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  let serial = 2;
  const issue = async (o: IssueOptions): Promise<TestCertificate> => {
    const leafKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const san = [
      ...(o.ips ?? ['127.0.0.1']).map((value) => ({ type: 'ip' as const, value })),
      ...(o.dnsNames ?? ['localhost']).map((value) => ({ type: 'dns' as const, value })),
    ];
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: String(serial++).padStart(2, '0'),
      subject: `CN=${o.cn}`,
      issuer: ca.subject,
      notBefore: o.notBefore ?? new Date(now - 60_000),
      notAfter: o.notAfter ?? new Date(now + HOUR_MS),
      signingKey: keys.privateKey,
      publicKey: leafKeys.publicKey,
      signingAlgorithm: ALG,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([
          ...(o.usage !== 'client' ? [x509.ExtendedKeyUsage.serverAuth] : []),
          ...(o.usage !== 'server' ? [x509.ExtendedKeyUsage.clientAuth] : []),
        ]),
        ...(o.usage !== 'client' ? [new x509.SubjectAlternativeNameExtension(san)] : []),
      ],
    });
    return { cert: cert.toString('pem'), key: await keyPem(leafKeys.privateKey) };
  };
  return { pem: ca.toString('pem'), issue };
}

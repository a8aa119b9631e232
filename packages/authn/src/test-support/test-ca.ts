import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface TestCertificate {
  cert: string;
  key: string;
}

/** A test CA: its PEM, and `issue` for serving (127.0.0.1) or client certificates it signs. */
export interface TestCA {
  pem: string;
  /** `dnsNames` adds DNS names to a serving certificate's SANs (beside 127.0.0.1). */
  issue(subject: string, usage: 'server' | 'client', dnsNames?: readonly string[]): Promise<TestCertificate>;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
}

/** Dev-only: a CA valid for an hour that issues a serving certificate for 127.0.0.1 and client certificates (webhook tests). */
export async function makeTestCA(cn: string): Promise<TestCA> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 3_600_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${cn}`,
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  let serial = 2;
  const issue = async (subject: string, usage: 'server' | 'client', dnsNames: readonly string[] = []): Promise<TestCertificate> => {
    const leafKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: String(serial++).padStart(2, '0'),
      subject,
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingKey: keys.privateKey,
      publicKey: leafKeys.publicKey,
      signingAlgorithm: ALG,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
        ...(usage === 'server'
          ? [
              new x509.SubjectAlternativeNameExtension([
                { type: 'ip', value: '127.0.0.1' },
                ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
              ]),
            ]
          : []),
      ],
    });
    return { cert: cert.toString('pem'), key: await keyPem(leafKeys.privateKey) };
  };
  return { pem: ca.toString('pem'), issue };
}

// Certificates for authn's tests, made with @peculiar/x509 (tsyringe inside it needs the Reflect polyfill first).
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type Agent, createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const HOUR = 3600_000;
let serial = 1;

/** A certificate with its private key, as PEM. */
export interface Issued {
  cert: string;
  key: string;
  keys: webcrypto.CryptoKeyPair;
  certificate: x509.X509Certificate;
}

export interface IssueOptions {
  cn: string;
  o?: string[];
  /** Values of kube's UID attribute (OID 1.3.6.1.4.1.57683.2). */
  uid?: string[];
  /** Extended key usages; `null` = no EKU extension. Default clientAuth. */
  eku?: ('clientAuth' | 'serverAuth')[] | null;
  notBefore?: Date;
  notAfter?: Date;
  ca?: boolean;
  dns?: string[];
  ips?: string[];
}

async function pemKey(keys: webcrypto.CryptoKeyPair): Promise<string> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }).toString();
}

const pemOf = (c: x509.X509Certificate): string => {
  const pem = c.toString('pem');
  return pem.endsWith('\n') ? pem : `${pem}\n`;
};

function subject(cn: string, o: string[] = [], uid: string[] = []): x509.JsonName {
  return [{ CN: [cn] }, ...o.map((v) => ({ O: [v] })), ...uid.map((v) => ({ '1.3.6.1.4.1.57683.2': [v] }))];
}

/** A self-signed CA. */
export async function makeCA(cn: string, opts: { notBefore?: Date; notAfter?: Date } = {}): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    name: subject(cn),
    notBefore: opts.notBefore ?? new Date(Date.now() - HOUR),
    notAfter: opts.notAfter ?? new Date(Date.now() + 24 * HOUR),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: pemOf(certificate), key: await pemKey(keys), keys, certificate };
}

/** A certificate `ca` signs. */
export async function issue(ca: Issued, opts: IssueOptions): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const eku = opts.eku === undefined ? ['clientAuth' as const] : opts.eku;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(opts.ca ?? false, undefined, true),
    new x509.KeyUsagesExtension(
      opts.ca ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign : x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  if (eku) extensions.push(new x509.ExtendedKeyUsageExtension(eku.map((u) => x509.ExtendedKeyUsage[u])));
  if (opts.dns || opts.ips)
    extensions.push(
      new x509.SubjectAlternativeNameExtension([
        ...(opts.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
        ...(opts.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
      ]),
    );
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject: subject(opts.cn, opts.o, opts.uid),
    issuer: ca.certificate.subject,
    notBefore: opts.notBefore ?? new Date(Date.now() - HOUR),
    notAfter: opts.notAfter ?? new Date(Date.now() + 24 * HOUR),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: SIGNING,
    extensions,
  });
  return { cert: pemOf(certificate), key: await pemKey(keys), keys, certificate };
}

/** What a test server answers: the handler's result as JSON, or its error message. */
export type Answer = { result: unknown } | { error: string };

/**
 * An HTTPS server on loopback that asks for (but does not require) a client certificate and answers every request
 * with `handle(req headers, TLS socket)`.
 */
export async function httpsServer(
  handle: (headers: IncomingHttpHeaders, socket: TLSSocket, headersDistinct: NodeJS.Dict<string[]>) => Promise<unknown>,
): Promise<{ url: string; ca: string; server: Server; close(): Promise<void> }> {
  const serverCA = await makeCA('test-server-ca');
  const serving = await issue(serverCA, { cn: 'localhost', eku: ['serverAuth'], ips: ['127.0.0.1'], dns: ['localhost'] });
  const server = createServer({ cert: serving.cert, key: serving.key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    handle(req.headers, req.socket as TLSSocket, req.headersDistinct).then(
      (result) => res.end(JSON.stringify({ result: result ?? null, headers: req.headers })),
      (err: Error) => res.end(JSON.stringify({ error: err.message, headers: req.headers })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    ca: serverCA.cert,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One GET with an optional client certificate (chain) and headers; the server's JSON answer. */
export function get(
  url: string,
  ca: string,
  client?: { cert: string; key: string },
  headers: Record<string, string | string[]> = {},
  agent: Agent | false = false,
  onSocket?: (socket: unknown) => void,
): Promise<{ result?: unknown; error?: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, ...(client ?? {}), headers, agent }, (res) => {
      onSocket?.(res.socket);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Certificates `subject` issues to itself with one key (CA, no key identifiers): `n` of them, plus a leaf they all could have signed. */
export async function selfIssuedTangle(n: number): Promise<{ tangle: string[]; leaf: string }> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const make = (cn: string, ca: boolean) =>
    x509.X509CertificateGenerator.create({
      serialNumber: (serial++).toString(16).padStart(2, '0'),
      subject: [{ CN: [cn] }],
      issuer: [{ CN: ['tangle'] }],
      notBefore: new Date(Date.now() - HOUR),
      notAfter: new Date(Date.now() + HOUR),
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: SIGNING,
      extensions: [new x509.BasicConstraintsExtension(ca, undefined, true)],
    });
  const tangle = await Promise.all(Array.from({ length: n }, () => make('tangle', true)));
  return { tangle: tangle.map(pemOf), leaf: pemOf(await make('victim', false)) };
}

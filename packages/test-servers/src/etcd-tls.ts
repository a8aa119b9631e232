import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCA, type TestCA, type TestCertificate } from './test-ca.ts';

/** What a test asks of a TLS etcd: the CA and serving certificate to use (made here when left out). */
export interface EtcdTLSOptions {
  /** The CA that signs the serving certificate and that etcd trusts for client certificates (default: a new one). */
  ca?: TestCA;
  /**
   * The serving certificate (default: one from `ca` for 127.0.0.1 and localhost, for server and client auth: etcd's
   * HTTP gateway presents it to etcd's gRPC port, which --client-cert-auth checks).
   */
  serving?: TestCertificate;
  /** Require a client certificate signed by `ca` (etcd's --client-cert-auth; default true). */
  clientCertAuth?: boolean;
}

/** A TLS etcd's credentials as a test uses them. */
export interface EtcdTLS {
  /** The CA: `ca.pem` is what a client trusts; `ca.issue` makes more client (or serving) certificates. */
  readonly ca: TestCA;
  /** A client certificate etcd accepts (CN `kapi-test-client`). */
  readonly client: TestCertificate;
}

/** The TLS material of a member process: etcd's flags over files in a temp dir, and the client side for probes. */
export interface EtcdTLSFiles extends EtcdTLS {
  readonly args: string[];
  /** Removes the files. */
  remove(): void;
}

/**
 * Makes (or takes) a CA and certificates and writes the files etcd reads (--cert-file, --key-file, --trusted-ca-file,
 * and --client-cert-auth unless turned off). Client TLS only: peers speak plaintext.
 */
export async function etcdTLSFiles(opts: EtcdTLSOptions): Promise<EtcdTLSFiles> {
  const ca = opts.ca ?? (await makeTestCA('kapi-test-etcd-ca'));
  const serving = opts.serving ?? (await ca.issue({ cn: 'kapi-test-etcd', usage: 'server-and-client' }));
  const client = await ca.issue({ cn: 'kapi-test-client', usage: 'client' });
  const dir = mkdtempSync(join(tmpdir(), 'kapi-etcd-tls-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  const args = [
    '--cert-file',
    file('server.crt', serving.cert),
    '--key-file',
    file('server.key', serving.key),
    '--trusted-ca-file',
    file('ca.crt', ca.pem),
    ...(opts.clientCertAuth === false ? [] : ['--client-cert-auth']),
  ];
  return { ca, client, args, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

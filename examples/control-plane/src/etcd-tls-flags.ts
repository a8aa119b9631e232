import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { EtcdTLSOptions } from '@kapi/storage-etcd';
import type { FlagValues } from './flag-values.ts';

/** kube-apiserver's flags for TLS to etcd, as parseArgs options. */
export const ETCD_TLS_FLAGS = {
  'etcd-cafile': { type: 'string' },
  'etcd-certfile': { type: 'string' },
  'etcd-keyfile': { type: 'string' },
} as const;

export const ETCD_TLS_USAGE =
  "[--storage etcds://host:port… [--etcd-cafile <file>] [--etcd-certfile <file> --etcd-keyfile <file>]]   (etcd over TLS; the CA default: Node's trusted roots)";

export type EtcdTLSFlagValues = FlagValues<typeof ETCD_TLS_FLAGS>;

/** A flag's file, read and checked as `what` (a missing or wrong file is a startup error naming the flag). */
function readPEM(flag: string, path: string, what: 'certificate' | 'key'): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`--${flag}: cannot read ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  try {
    if (what === 'certificate') new X509Certificate(text);
    else createPrivateKey(text);
  } catch (err) {
    throw new Error(`--${flag}: ${JSON.stringify(path)} is not a PEM ${what}: ${(err as Error).message}`);
  }
  return text;
}

/**
 * EtcdStorage's `tls` option from --etcd-cafile (the CA bundle etcd's serving certificates chain to; default Node's
 * trusted roots), --etcd-certfile and --etcd-keyfile (the client certificate for etcd's --client-cert-auth, both or
 * neither). They are for an `etcds://` --storage (etcd over TLS); undefined when none is given.
 */
export function etcdTLSFromFlags(flags: EtcdTLSFlagValues, storage: string): EtcdTLSOptions | undefined {
  const ca = flags['etcd-cafile'];
  const cert = flags['etcd-certfile'];
  const key = flags['etcd-keyfile'];
  if (ca === undefined && cert === undefined && key === undefined) return undefined;
  if (!storage.startsWith('etcds://')) {
    throw new Error(
      `--etcd-cafile, --etcd-certfile and --etcd-keyfile are for TLS to etcd: use --storage etcds://host:port, not ${JSON.stringify(storage)}`,
    );
  }
  if ((cert === undefined) !== (key === undefined)) throw new Error('--etcd-certfile and --etcd-keyfile go together');
  return {
    ...(ca !== undefined ? { ca: readPEM('etcd-cafile', ca, 'certificate') } : {}),
    ...(cert !== undefined ? { cert: readPEM('etcd-certfile', cert, 'certificate') } : {}),
    ...(key !== undefined ? { key: readPEM('etcd-keyfile', key, 'key') } : {}),
  };
}

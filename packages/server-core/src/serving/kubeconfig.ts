import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** The server URL, e.g. https://127.0.0.1:6443. */
  server: string;
  /** PEM of the CA to trust (becomes certificate-authority-data). */
  ca: string;
  /** Bearer token of the user (or give a client certificate). */
  token?: string;
  /** PEM client certificate (chain) of the user, with `clientKey` (kubeconfig client-certificate-data / client-key-data). */
  clientCertificate?: string;
  clientKey?: string;
  /** Default "kapi-admin". */
  user?: string;
  /** Default "kapi". */
  cluster?: string;
  /** Default "kapi". */
  context?: string;
  /** Default namespace of the context; none by default. */
  namespace?: string;
}

/**
 * A kubeconfig (clientcmd v1 Config) with one cluster, one user (a token or a client certificate) and a current
 * context that joins them.
 */
export function kubeconfig(options: KubeconfigOptions): string {
  const cluster = options.cluster ?? 'kapi';
  const user = options.user ?? 'kapi-admin';
  const context = options.context ?? 'kapi';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster: { server: options.server, 'certificate-authority-data': Buffer.from(options.ca).toString('base64') },
      },
    ],
    users: [{ name: user, user: credentialOf(options) }],
    contexts: [{ name: context, context: { cluster, user, ...(options.namespace ? { namespace: options.namespace } : {}) } }],
    'current-context': context,
    preferences: {},
  });
}

/**
 * Writes {@link kubeconfig} to `path` with mode 0600 (it holds a credential), creating directories. It is written whole
 * under a temporary name and renamed, so kubectl or another process sharing the directory never reads half of one.
 */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, kubeconfig(options), { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

/** The kubeconfig user entry: the client certificate when given (base64 data fields), else the token. */
function credentialOf(options: KubeconfigOptions): Record<string, string> {
  if (options.clientCertificate !== undefined && options.clientKey !== undefined)
    return {
      'client-certificate-data': Buffer.from(options.clientCertificate).toString('base64'),
      'client-key-data': Buffer.from(options.clientKey).toString('base64'),
    };
  return { token: options.token ?? '' };
}

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CachedTokenFile, type CachedTokenFileOptions, type WebhookClientConfig, webhookClientConfigOf } from '@kapi/authn';
import { parse } from 'yaml';

/**
 * How an extension server reaches the main API server (kube's --authentication-kubeconfig / --authorization-kubeconfig):
 * a kubeconfig (a file path, or its parsed content), the parts of one given directly, or the pod's service account
 * (client-go's rest.InClusterConfig, what an aggregated server uses without those flags).
 */
export type DelegationConnection =
  | { kubeconfig: string | Record<string, unknown>; baseDir?: string }
  | {
      inCluster: true;
      /** Where the pod's filesystem starts (tests); default `/`. */
      root?: string;
      /** The environment to read KUBERNETES_SERVICE_HOST/PORT from; default process.env. */
      env?: Record<string, string | undefined>;
      /** How the token file is re-read; default client-go's (at most once a minute). */
      tokenRefresh?: CachedTokenFileOptions;
    }
  | {
      /** The main server, e.g. https://127.0.0.1:6443 (a path prefix is kept). */
      server: string;
      /** PEM CA bundle of the main server's serving certificate. */
      ca?: string | Buffer;
      token?: string;
      cert?: string | Buffer;
      key?: string | Buffer;
      tlsServerName?: string;
      insecureSkipTLSVerify?: boolean;
    };

/** The client config of a {@link DelegationConnection}: a kubeconfig file is read as YAML (JSON is YAML too). */
export function connectionConfig(connection: DelegationConnection): WebhookClientConfig {
  if ('kubeconfig' in connection) {
    const kc = connection.kubeconfig;
    if (typeof kc === 'string') return webhookClientConfigOf(parse(readFileSync(kc, 'utf8')), connection.baseDir ?? dirname(kc));
    return webhookClientConfigOf(kc, connection.baseDir ?? '.');
  }
  if ('inCluster' in connection) return inClusterConfig(connection.root, connection.env, connection.tokenRefresh);
  return { ...connection };
}

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** client-go's ErrNotInCluster text. */
export const NOT_IN_CLUSTER =
  'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined';

/**
 * client-go's rest.InClusterConfig: https://<KUBERNETES_SERVICE_HOST>:<KUBERNETES_SERVICE_PORT> (an IPv6 host
 * bracketed, as Go's net.JoinHostPort), the service account's token (read now, so a pod without one fails at start,
 * then re-read as client-go's cached file token source) and its ca.crt when it holds a certificate (else the system
 * roots, as client-go which only logs the error).
 */
export function inClusterConfig(
  root = '/',
  env: Record<string, string | undefined> = process.env,
  tokenRefresh: CachedTokenFileOptions = {},
): WebhookClientConfig {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  if (!host || !port) throw new Error(NOT_IN_CLUSTER);
  const dir = join(root, SERVICE_ACCOUNT_DIR);
  const tokenFile = new CachedTokenFile(join(dir, 'token'), tokenRefresh);
  const token = tokenFile.token();
  let ca: Buffer | undefined;
  try {
    ca = readFileSync(join(dir, 'ca.crt'));
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) ca = undefined;
  } catch {
    ca = undefined;
  }
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    token,
    tokenFile,
    ...(ca ? { ca } : {}),
  };
}

/** The same connection aimed at `path` of the main server (the webhook client POSTs to its `server` as it is). */
export function atPath(config: WebhookClientConfig, path: string): WebhookClientConfig {
  return { ...config, server: `${config.server.replace(/\/+$/, '')}${path}` };
}

import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type WebhookClientConfig, webhookClientConfigOf } from '@kapi/authn';
import { parse } from 'yaml';

/**
 * How an extension server reaches the main API server (kube's --authentication-kubeconfig / --authorization-kubeconfig):
 * a kubeconfig (a file path, or its parsed content) or the parts of one given directly.
 */
export type DelegationConnection =
  | { kubeconfig: string | Record<string, unknown>; baseDir?: string }
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
  return { ...connection };
}

/** The same connection aimed at `path` of the main server (the webhook client POSTs to its `server` as it is). */
export function atPath(config: WebhookClientConfig, path: string): WebhookClientConfig {
  return { ...config, server: `${config.server.replace(/\/+$/, '')}${path}` };
}

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { WebhookClientConfig } from './webhook-client.ts';

type Named<T> = { name?: string } & T;
interface Kubeconfig {
  'current-context'?: string;
  clusters?: Named<{ cluster?: Record<string, unknown> }>[];
  users?: Named<{ user?: Record<string, unknown> }>[];
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
}

/**
 * The webhook client config of a kubeconfig-format object (kube's --authentication-token-webhook-config-file):
 * the current context's cluster and user, else the first of each. Relative file paths are relative to `baseDir`.
 */
export function webhookClientConfigOf(kubeconfig: unknown, baseDir = '.'): WebhookClientConfig {
  const kc = (kubeconfig ?? {}) as Kubeconfig;
  const ctx = kc.contexts?.find((c) => c.name === kc['current-context'])?.context;
  const cluster = (ctx ? kc.clusters?.find((c) => c.name === ctx.cluster) : kc.clusters?.[0])?.cluster;
  const user = (ctx ? kc.users?.find((u) => u.name === ctx.user) : kc.users?.[0])?.user ?? {};
  if (!cluster || typeof cluster.server !== 'string') throw new Error('webhook kubeconfig: no cluster with a server');
  const resolve = (p: unknown): string => (isAbsolute(String(p)) ? String(p) : join(baseDir, String(p)));
  const file = (p: unknown): Buffer => readFileSync(resolve(p));
  const pem = (data: unknown, path: unknown): Buffer | undefined =>
    typeof data === 'string' && data ? Buffer.from(data, 'base64') : typeof path === 'string' && path ? file(path) : undefined;
  const ca = pem(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = pem(user['client-certificate-data'], user['client-certificate']);
  const key = pem(user['client-key-data'], user['client-key']);
  const inline = typeof user.token === 'string' && user.token ? user.token : undefined;
  // client-go re-reads a tokenFile (a rotated token is picked up) unless a token is given too; it is read once now.
  const tokenFile = !inline && typeof user.tokenFile === 'string' ? resolve(user.tokenFile) : undefined;
  const token = inline ?? (tokenFile ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  return {
    server: cluster.server,
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(token ? { token } : {}),
    ...(tokenFile ? { tokenFile } : {}),
    ...(typeof cluster['tls-server-name'] === 'string' ? { tlsServerName: cluster['tls-server-name'] } : {}),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecureSkipTLSVerify: true } : {}),
  };
}

/**
 * Reads a webhook kubeconfig file. authn parses JSON (which is YAML too); pass a YAML parser (e.g. the `yaml`
 * package's `parse`) to read YAML kubeconfigs.
 */
export function loadWebhookKubeconfig(path: string, parse: (text: string) => unknown = JSON.parse): WebhookClientConfig {
  return webhookClientConfigOf(parse(readFileSync(path, 'utf8')), dirname(path));
}

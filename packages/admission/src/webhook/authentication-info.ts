import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { decodePluginConfig } from '../config/plugin-config.ts';

/**
 * How kube-apiserver authenticates itself to admission webhooks (k8s.io/apiserver/pkg/util/webhook/authentication.go
 * and admission/plugin/webhook/config): the plugins' configuration names a kubeconfig whose users are keyed by the
 * webhook's `host:port` (a Service's is `<name>.<namespace>.svc:<port>`), with `*.<domain>` and `*` wildcards.
 */

/** The credentials presented to one webhook: a client certificate and key, and/or a bearer token. */
export interface WebhookAuthInfo {
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly token?: string;
}

/** kube's AuthenticationInfoResolver: the credentials for `host:port`; undefined calls anonymously. */
export interface AuthenticationInfoResolver {
  clientConfigFor(hostPort: string): WebhookAuthInfo | undefined;
}

type Named<T> = { name?: string } & T;
interface Kubeconfig {
  'current-context'?: string;
  users?: Named<{ user?: Record<string, unknown> }>[];
  contexts?: Named<{ context?: { user?: string } }>[];
}

function authInfoOf(user: Record<string, unknown>, baseDir: string): WebhookAuthInfo {
  const file = (p: string): Buffer => readFileSync(isAbsolute(p) ? p : join(baseDir, p));
  const pem = (data: unknown, path: unknown): Buffer | undefined =>
    typeof data === 'string' && data ? Buffer.from(data, 'base64') : typeof path === 'string' && path ? file(path) : undefined;
  const cert = pem(user['client-certificate-data'], user['client-certificate']);
  const key = pem(user['client-key-data'], user['client-key']);
  const token =
    typeof user.token === 'string' && user.token
      ? user.token
      : typeof user.tokenFile === 'string' && user.tokenFile
        ? file(user.tokenFile).toString('utf8').trim()
        : undefined;
  return { ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(token ? { token } : {}) };
}

/**
 * kube's defaultAuthenticationInfoResolver over a kubeconfig object: the user named exactly `host:port`, else the
 * nearest `*.<suffix>`; for port 443 the same again without the port; else `*`; else the current context's user; else
 * none (anonymous). Relative file paths are relative to `baseDir`.
 */
export function kubeconfigAuthenticationInfoResolver(kubeconfig: unknown, baseDir = '.'): AuthenticationInfoResolver {
  const kc = (kubeconfig ?? {}) as Kubeconfig;
  const users = new Map<string, Record<string, unknown>>();
  for (const u of kc.users ?? []) if (u.name !== undefined && !users.has(u.name)) users.set(u.name, u.user ?? {});
  const cache = new Map<string, WebhookAuthInfo | undefined>();
  const lookup = (target: string): Record<string, unknown> | undefined => {
    const exact = users.get(target);
    if (exact) return exact;
    const steps = target.split('.');
    for (let i = 1; i < steps.length; i++) {
      const star = users.get(`*.${steps.slice(i).join('.')}`);
      if (star) return star;
    }
    return undefined;
  };
  const resolve = (target: string): Record<string, unknown> | undefined => {
    const direct = lookup(target);
    if (direct) return direct;
    const colon = target.lastIndexOf(':');
    if (colon > 0 && target.slice(colon + 1) === '443') {
      const withoutPort = lookup(target.slice(0, colon).replace(/^\[|\]$/g, ''));
      if (withoutPort) return withoutPort;
    }
    const star = users.get('*');
    if (star) return star;
    const ctx = kc.contexts?.find((c) => c.name === kc['current-context'])?.context;
    return ctx?.user ? users.get(ctx.user) : undefined;
  };
  return {
    clientConfigFor(hostPort) {
      if (!cache.has(hostPort)) {
        const user = resolve(hostPort);
        cache.set(hostPort, user ? authInfoOf(user, baseDir) : undefined);
      }
      return cache.get(hostPort);
    },
  };
}

/** The kinds kube's webhook plugins take as their AdmissionConfiguration entry. */
const WEBHOOK_ADMISSION_KINDS = [
  { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration' },
  { apiVersion: 'apiserver.config.k8s.io/v1alpha1', kind: 'WebhookAdmission' },
];

/**
 * kube's webhook config.LoadConfig for MutatingAdmissionWebhook / ValidatingAdmissionWebhook: the plugin's
 * configuration (WebhookAdmissionConfiguration) names an absolute `kubeConfigFile`, read here (YAML or JSON) into a
 * resolver. undefined when there is no configuration (webhooks are then called without credentials).
 */
export function webhookAuthenticationFromConfig(config: unknown): AuthenticationInfoResolver | undefined {
  const decoded = decodePluginConfig<{ kubeConfigFile?: unknown }>(config, WEBHOOK_ADMISSION_KINDS);
  if (!decoded) return undefined;
  const file = typeof decoded.kubeConfigFile === 'string' ? decoded.kubeConfigFile : '';
  if (!isAbsolute(file)) throw new Error(`kubeConfigFile: Invalid value: ${JSON.stringify(file)}: must be an absolute file path`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`failed to read kubeConfigFile ${file}: ${(err as Error).message}`);
  }
  return kubeconfigAuthenticationInfoResolver(parseYaml(text), dirname(file));
}

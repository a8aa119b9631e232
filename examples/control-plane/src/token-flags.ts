import type { FlagValues } from './flag-values.ts';
import type { TokenAuthenticationOptions } from './token-authenticators.ts';

/** kube-apiserver's flags for bootstrap tokens, the token webhook, basic auth and API audiences, as parseArgs options. */
export const TOKEN_FLAGS = {
  'api-audiences': { type: 'string' },
  'enable-bootstrap-token-auth': { type: 'string' },
  'authentication-token-webhook-config-file': { type: 'string' },
  'authentication-token-webhook-cache-ttl': { type: 'string' },
  'basic-auth-file': { type: 'string' },
} as const;

export const TOKEN_USAGE =
  '[--api-audiences a,b] [--enable-bootstrap-token-auth=true|false] [--authentication-token-webhook-config-file KUBECONFIG [--authentication-token-webhook-cache-ttl 2m0s]] [--basic-auth-file CSV (legacy)]';

export type TokenFlagValues = FlagValues<typeof TOKEN_FLAGS>;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration of h, m, s and ms parts (`2m0s`, `30s`, `1h30m`, `500ms`), in milliseconds. */
export function parseGoDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new Error(`invalid duration ${JSON.stringify(text)}`);
  return parts.reduce((ms, p) => ms + Number(p[1]) * (UNIT_MS[p[2] as string] as number), 0);
}

/** The options the flags ask for, checked as kube-apiserver does (a cache TTL needs the webhook; booleans are true/false). */
export function tokenOptionsFromFlags(flags: TokenFlagValues): TokenAuthenticationOptions {
  const out: TokenAuthenticationOptions = {};
  const auds = flags['api-audiences'];
  if (auds !== undefined) out.apiAudiences = auds.split(',').filter((a) => a !== '');
  const bootstrap = flags['enable-bootstrap-token-auth'];
  if (bootstrap !== undefined) {
    if (bootstrap !== 'true' && bootstrap !== 'false')
      throw new Error(`--enable-bootstrap-token-auth must be true or false, not ${JSON.stringify(bootstrap)}`);
    out.enableBootstrapTokenAuth = bootstrap === 'true';
  }
  const webhook = flags['authentication-token-webhook-config-file'];
  const ttl = flags['authentication-token-webhook-cache-ttl'];
  if (webhook) out.authenticationTokenWebhookConfigFile = webhook;
  if (ttl !== undefined) {
    if (!webhook) throw new Error('--authentication-token-webhook-cache-ttl needs --authentication-token-webhook-config-file');
    out.authenticationTokenWebhookCacheTtlMs = parseGoDuration(ttl);
  }
  const basic = flags['basic-auth-file'];
  if (basic) out.basicAuthFile = basic;
  return out;
}

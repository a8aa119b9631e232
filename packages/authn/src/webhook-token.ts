import { intersectAudiences } from './audiences.ts';
import type { AuthenticationResult } from './authenticator.ts';
import type { TokenAuthenticator } from './bearer-token.ts';
import { TokenCache, type TokenCacheOptions } from './token-cache.ts';
import type { UserInfo } from './user-info.ts';
import { WebhookClient, type WebhookClientConfig, type WebhookClientOptions } from './webhook-client.ts';

export interface WebhookTokenOptions extends WebhookClientOptions {
  /** The server's API audiences: what a webhook that answers without status.audiences is taken to have checked. */
  apiAudiences?: readonly string[];
}

/**
 * kube's webhook token authenticator (plugin/pkg/authenticator/token/webhook): each bearer token is sent as an
 * authentication.k8s.io/v1 TokenReview (`spec.token`, `spec.audiences` = the request's audiences) to a remote service
 * configured by a kubeconfig-format file, which answers `status.authenticated`, `status.user` and `status.audiences`.
 * Transport errors, 429 and 5xx are retried with kube's backoff; errors never carry the token. Wrap it in a
 * {@link TokenCache} (as {@link webhookTokenAuthenticator} does) so each token is asked once per TTL.
 *
 * @example
 * const webhook = webhookTokenAuthenticator(loadWebhookKubeconfig('/etc/kapi/authn-webhook.json'));
 */
export class WebhookTokenAuthenticator implements TokenAuthenticator {
  readonly #client: WebhookClient;
  readonly #implicit: readonly string[];

  constructor(config: WebhookClientConfig, options: WebhookTokenOptions = {}) {
    this.#client = new WebhookClient(config, options);
    this.#implicit = [...(options.apiAudiences ?? [])];
  }

  /** Closes kept-alive connections to the webhook. */
  close(): void {
    this.#client.close();
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
    const review = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(audiences?.length ? { audiences: [...audiences] } : {}) },
    };
    let reply: unknown;
    try {
      reply = await this.#client.post(JSON.stringify(review));
    } catch (err) {
      throw new Error(`Failed to make webhook authenticator request: ${(err as Error).message}`);
    }
    const status = (reply as { status?: unknown } | null)?.status as Record<string, unknown> | undefined;
    if (!status || typeof status !== 'object') throw new Error('webhook authenticator: TokenReview response has no status');
    let auds: string[] | undefined;
    if (audiences !== undefined) {
      const got = Array.isArray(status.audiences) && status.audiences.length ? (status.audiences as string[]) : this.#implicit;
      auds = intersectAudiences(audiences, got);
      if (auds.length === 0) return null;
    }
    if (status.authenticated !== true) {
      // A denial with a reason fails the request; a plain denial is "not mine" (kube's webhook does the same).
      if (typeof status.error === 'string' && status.error !== '') throw new Error(status.error);
      return null;
    }
    const u = (status.user ?? {}) as Record<string, unknown>;
    const user: UserInfo = {
      name: typeof u.username === 'string' ? u.username : '',
      ...(typeof u.uid === 'string' && u.uid ? { uid: u.uid } : {}),
      groups: Array.isArray(u.groups) ? u.groups.filter((g): g is string => typeof g === 'string') : [],
      ...(u.extra && typeof u.extra === 'object' ? { extra: extraOf(u.extra as Record<string, unknown>) } : {}),
    };
    return auds ? { user, audiences: auds } : { user };
  }
}

function extraOf(extra: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extra)) {
    if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

/** kube's webhook token authenticator behind its token cache (the way kube-apiserver wires it). */
export function webhookTokenAuthenticator(
  config: WebhookClientConfig,
  options: WebhookTokenOptions & { cache?: TokenCacheOptions | false } = {},
): TokenAuthenticator {
  const webhook = new WebhookTokenAuthenticator(config, options);
  return options.cache === false ? webhook : new TokenCache(webhook, options.cache ?? {});
}

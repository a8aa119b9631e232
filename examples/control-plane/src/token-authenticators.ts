import {
  type Authenticator,
  BasicAuthAuthenticator,
  BearerTokenAuthenticator,
  type BootstrapSecret,
  BootstrapTokenAuthenticator,
  loadWebhookKubeconfig,
  type ObjectGetter,
  webhookTokenAuthenticator,
} from '@kapi/authn';
import { decodeYAML } from '@kapi/server-core';

/** kube-apiserver's flags for the token authenticators of issue 11's part D. */
export interface TokenAuthenticationOptions {
  /** kube's --api-audiences: every token must be good for one of these (TokenReview's default audiences too). Default none. */
  apiAudiences?: readonly string[];
  /** kube's --enable-bootstrap-token-auth (kubeadm turns it on): Secrets `bootstrap-token-<id>` in kube-system. Default true. */
  enableBootstrapTokenAuth?: boolean;
  /** kube's --authentication-token-webhook-config-file: a kubeconfig (YAML or JSON) naming a TokenReview webhook. */
  authenticationTokenWebhookConfigFile?: string;
  /** kube's --authentication-token-webhook-cache-ttl, in milliseconds. Default 2 minutes. */
  authenticationTokenWebhookCacheTtlMs?: number;
  /** LEGACY kube's --basic-auth-file (removed in kube 1.19): `password,user,uid[,"groups"]` lines. Off unless given. */
  basicAuthFile?: string;
}

/**
 * The authenticators these options turn on, in kube's order after the token file and service accounts: bootstrap
 * tokens (read through `secrets`, the Secret store's watch cache), then the webhook (behind its token cache), and the
 * legacy basic-auth file.
 */
export function tokenAuthenticators(options: TokenAuthenticationOptions, secrets: ObjectGetter): Authenticator[] {
  const apiAudiences = options.apiAudiences ?? [];
  const list: Authenticator[] = [];
  if (options.basicAuthFile) list.push(BasicAuthAuthenticator.fromFile(options.basicAuthFile));
  if (options.enableBootstrapTokenAuth !== false) {
    list.push(
      new BootstrapTokenAuthenticator(
        { getSecret: async (namespace, name) => ((await secrets(namespace, name)) as BootstrapSecret | null) ?? undefined },
        { apiAudiences },
      ),
    );
  }
  if (options.authenticationTokenWebhookConfigFile) {
    const config = loadWebhookKubeconfig(options.authenticationTokenWebhookConfigFile, decodeYAML);
    const ttl = options.authenticationTokenWebhookCacheTtlMs;
    list.push(
      new BearerTokenAuthenticator(
        webhookTokenAuthenticator(config, {
          apiAudiences,
          ...(ttl !== undefined ? { cache: { successTtlMs: ttl, failureTtlMs: ttl } } : {}),
        }),
      ),
    );
  }
  return list;
}

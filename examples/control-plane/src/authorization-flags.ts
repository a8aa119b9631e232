import { aggregateErrors } from '@kapi/authn';
import { parseAuthorizationModes, validateAuthorizationOptions } from '@kapi/authz';
import type { FlagValues } from './flag-values.ts';
import { parseGoDuration } from './token-flags.ts';

/** kube-apiserver's authorization flags and --anonymous-auth, as node:util parseArgs options. */
export const AUTHORIZATION_FLAGS = {
  'authorization-mode': { type: 'string' },
  'authorization-policy-file': { type: 'string' },
  'authorization-webhook-config-file': { type: 'string' },
  'authorization-webhook-version': { type: 'string' },
  'authorization-webhook-cache-authorized-ttl': { type: 'string' },
  'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
  'anonymous-auth': { type: 'string' },
} as const;

export const AUTHORIZATION_USAGE =
  '[--authorization-mode RBAC (RBAC,ABAC,Webhook,AlwaysAllow,AlwaysDeny, in order)] [--authorization-policy-file JSONL] [--authorization-webhook-config-file KUBECONFIG [--authorization-webhook-version v1beta1|v1] [--authorization-webhook-cache-authorized-ttl 5m0s] [--authorization-webhook-cache-unauthorized-ttl 30s]] [--anonymous-auth=true|false]';

export type AuthorizationFlagValues = FlagValues<typeof AUTHORIZATION_FLAGS>;

/** The control plane's authorization options (see ControlPlaneOptions). */
export interface AuthorizationFlagOptions {
  /** kube's --authorization-mode, in order. Default ['RBAC']. */
  authorizationModes?: readonly string[];
  /** kube's --authorization-policy-file (ABAC, one JSON policy per line). */
  authorizationPolicyFile?: string;
  /** kube's --authorization-webhook-config-file (a kubeconfig naming the SubjectAccessReview webhook). */
  authorizationWebhookConfigFile?: string;
  /** kube's --authorization-webhook-version. Default v1beta1, as kube's. */
  authorizationWebhookVersion?: 'v1' | 'v1beta1';
  authorizationWebhookAuthorizedTTLMs?: number;
  authorizationWebhookUnauthorizedTTLMs?: number;
  /** kube's --anonymous-auth: requests without credentials are system:anonymous (then authorized). Default true. */
  anonymousAuth?: boolean;
}

/** The options the flags ask for, checked as kube-apiserver does (its texts, aggregated). */
export function authorizationOptionsFromFlags(flags: AuthorizationFlagValues): AuthorizationFlagOptions {
  const out: AuthorizationFlagOptions = {};
  const mode = flags['authorization-mode'];
  if (mode !== undefined) out.authorizationModes = parseAuthorizationModes(mode);
  const policyFile = flags['authorization-policy-file'];
  if (policyFile) out.authorizationPolicyFile = policyFile;
  const webhook = flags['authorization-webhook-config-file'];
  if (webhook) out.authorizationWebhookConfigFile = webhook;
  const version = flags['authorization-webhook-version'];
  if (version !== undefined) {
    if (version !== 'v1' && version !== 'v1beta1')
      throw new Error(`--authorization-webhook-version must be v1 or v1beta1, not ${JSON.stringify(version)}`);
    out.authorizationWebhookVersion = version;
  }
  const allowedTTL = flags['authorization-webhook-cache-authorized-ttl'];
  if (allowedTTL !== undefined) out.authorizationWebhookAuthorizedTTLMs = parseGoDuration(allowedTTL);
  const deniedTTL = flags['authorization-webhook-cache-unauthorized-ttl'];
  if (deniedTTL !== undefined) out.authorizationWebhookUnauthorizedTTLMs = parseGoDuration(deniedTTL);
  const anonymous = flags['anonymous-auth'];
  if (anonymous !== undefined) {
    if (anonymous !== 'true' && anonymous !== 'false')
      throw new Error(`--anonymous-auth must be true or false, not ${JSON.stringify(anonymous)}`);
    out.anonymousAuth = anonymous === 'true';
  }
  const err = aggregateErrors(
    validateAuthorizationOptions({
      modes: out.authorizationModes ?? ['RBAC'],
      ...(policyFile ? { policyFile } : {}),
      ...(webhook ? { webhookConfigFile: webhook } : {}),
    }),
  );
  if (err) throw err;
  // kube's Node mode needs a node authorizer, which a generic control plane has no nodes for.
  if (out.authorizationModes?.includes('Node'))
    throw new Error('--authorization-mode Node: this control plane has no node authorizer (@kapi/authz GraphAuthorizer builds one)');
  return out;
}

import { goQuote } from '@kapi/apimachinery';
import { aggregateErrors, type RetryBackoff } from '@kapi/authn';
import { ABACAuthorizer } from '../abac/abac-authorizer.ts';
import { AlwaysAllowAuthorizer } from '../always-allow.ts';
import { AlwaysDenyAuthorizer } from '../always-deny.ts';
import type { Authorizer } from '../authorizer.ts';
import { unionAuthorizer } from '../union.ts';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from '../webhook/webhook-authorizer.ts';
import { systemMastersAuthorizer } from './privileged-groups.ts';

/** kube-apiserver's --authorization-mode values (modes.AuthorizationModeChoices, in kube's order). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export const isAuthorizationMode = (mode: string): mode is AuthorizationMode => (AUTHORIZATION_MODES as readonly string[]).includes(mode);

/** kube-apiserver's legacy authorization flags (BuiltInAuthorizationOptions). */
export interface AuthorizationOptions {
  /** --authorization-mode, in order; none means AlwaysAllow (kube's Complete). */
  readonly modes?: readonly string[];
  /** --authorization-policy-file (ABAC). */
  readonly policyFile?: string;
  /** --authorization-webhook-config-file (Webhook, kubeconfig format). */
  readonly webhookConfigFile?: string;
  /** The webhook's retry backoff; `steps` must be above 0. */
  readonly webhookRetryBackoff?: RetryBackoff;
}

/** How the modes whose authorizers live elsewhere are built; ABAC and Webhook default to kapi's own from the files. */
export interface AuthorizerFactories {
  readonly RBAC?: () => Authorizer;
  readonly Node?: () => Authorizer;
  readonly ABAC?: (policyFile: string) => Authorizer;
  readonly Webhook?: (configFile: string) => Authorizer;
  /**
   * Options for the default Webhook factory (TTLs, version, metrics, …). Its version defaults to v1; kube's
   * --authorization-webhook-version defaults to v1beta1, so a flag with kube's default passes `version: 'v1beta1'`.
   */
  readonly webhook?: WebhookAuthorizerOptions;
  /** Wraps each mode's authorizer (e.g. server-core's instrumentedAuthorizer, counting decisions per mode as kube). */
  readonly instrument?: (mode: AuthorizationMode, authorizer: Authorizer) => Authorizer;
}

/**
 * The value of `--authorization-mode` as pflag's string slice reads it: comma-separated, nothing trimmed (so
 * "Node, RBAC" names the mode " RBAC", which kube refuses); an empty value is no modes.
 */
export function parseAuthorizationModes(value: string): string[] {
  return value === '' ? [] : value.split(',');
}

/** kube's BuiltInAuthorizationOptions.Validate, with its texts; an empty list of errors is valid. */
export function validateAuthorizationOptions(o: AuthorizationOptions): Error[] {
  const errors: Error[] = [];
  const modes = o.modes ?? [];
  if (modes.length === 0) errors.push(new Error('at least one authorization-mode must be passed'));
  for (const mode of modes) {
    if (!isAuthorizationMode(mode)) errors.push(new Error(`authorization-mode ${goQuote(mode)} is not a valid mode`));
    if (mode === 'ABAC' && !o.policyFile) errors.push(new Error("authorization-mode ABAC's authorization policy file not passed"));
    if (mode === 'Webhook' && !o.webhookConfigFile)
      errors.push(new Error("authorization-mode Webhook's authorization config file not passed"));
  }
  if (o.policyFile && !modes.includes('ABAC')) errors.push(new Error('cannot specify --authorization-policy-file without mode ABAC'));
  if (o.webhookConfigFile && !modes.includes('Webhook'))
    errors.push(new Error('cannot specify --authorization-webhook-config-file without mode Webhook'));
  if (new Set(modes).size !== modes.length)
    errors.push(new Error(`authorization-mode [${modes.map(goQuote).join(' ')}] has mode specified more than once`));
  if (o.webhookRetryBackoff && o.webhookRetryBackoff.steps <= 0)
    errors.push(new Error(`number of webhook retry attempts must be greater than 0, but is: ${o.webhookRetryBackoff.steps}`));
  return errors;
}

/**
 * kube-apiserver's authorizer from its flags (options Complete + Validate, then the authorizer config's newForConfig):
 * `system:masters` first (kube's privileged-groups authorizer), then one authorizer per mode in the order given, in a
 * union — the first Allow or Deny wins, NoOpinion passes on. RBAC and Node come from `factories`; a mode asked for
 * without its factory is refused with kube's "not allowed if it was not enabled at initial server startup". Throws the
 * validation errors aggregated as kube prints them.
 */
export function buildAuthorizer(options: AuthorizationOptions, factories: AuthorizerFactories = {}): Authorizer {
  const modes = options.modes?.length ? options.modes : ['AlwaysAllow'];
  const err = aggregateErrors(validateAuthorizationOptions({ ...options, modes }));
  if (err) throw err;
  const authorizers: Authorizer[] = [systemMastersAuthorizer()];
  for (const mode of modes as AuthorizationMode[]) {
    const authorizer = modeAuthorizer(mode, options, factories);
    authorizers.push(factories.instrument ? factories.instrument(mode, authorizer) : authorizer);
  }
  return unionAuthorizer(...authorizers);
}

/** The authorizer of one (valid) mode. */
function modeAuthorizer(mode: AuthorizationMode, options: AuthorizationOptions, factories: AuthorizerFactories): Authorizer {
  switch (mode) {
    case 'AlwaysAllow':
      return new AlwaysAllowAuthorizer();
    case 'AlwaysDeny':
      return new AlwaysDenyAuthorizer();
    case 'ABAC':
      return (factories.ABAC ?? ABACAuthorizer.fromFile)(options.policyFile as string);
    case 'Webhook': {
      const webhookOptions = {
        ...factories.webhook,
        ...(options.webhookRetryBackoff ? { retryBackoff: options.webhookRetryBackoff } : {}),
      };
      const make = factories.Webhook ?? ((file: string) => WebhookAuthorizer.fromKubeconfigFile(file, webhookOptions));
      return make(options.webhookConfigFile as string);
    }
    case 'RBAC':
    case 'Node': {
      const make = factories[mode];
      if (!make) throw new Error(`authorizer type ${mode} is not allowed if it was not enabled at initial server startup`);
      return make();
    }
  }
}

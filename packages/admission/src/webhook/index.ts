// kube's admission webhooks (MutatingAdmissionWebhook, ValidatingAdmissionWebhook): what @kapi/admission exports.
export {
  type AuthenticationInfoResolver,
  kubeconfigAuthenticationInfoResolver,
  type WebhookAuthInfo,
  webhookAuthenticationFromConfig,
} from './authentication-info.ts';
export { caBundleHasCertificate } from './ca-bundle.ts';
export { dryRunUnsupported, toStatusErr } from './errors.ts';
export { isExemptAdmissionConfiguration, type WebhookPluginOptions } from './generic-webhook.ts';
export {
  MUTATING_WEBHOOK_PLUGIN_NAME,
  MutatingWebhooks,
  type MutatingWebhooksOptions,
} from './mutating-webhooks.ts';
export {
  endpointsServiceResolver,
  mapServiceResolver,
  type ServiceEndpointsLookup,
  ServiceResolutionError,
  type ServiceResolutionReason,
  type ServiceResolver,
} from './service-resolver.ts';
export {
  VALIDATING_WEBHOOK_PLUGIN_NAME,
  ValidatingWebhooks,
  type ValidatingWebhooksOptions,
} from './validating-webhooks.ts';
export { readWebhookAnswer, type TransportError, transportMessage, WebhookCallFailure } from './webhook-call-result.ts';
export { validateCABundle, validateWebhookService, validateWebhookURL } from './webhook-validation.ts';

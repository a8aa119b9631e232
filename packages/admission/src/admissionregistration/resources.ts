import type { ResourceDefinition } from '@kapi/registry';
import {
  ValidatingAdmissionPolicyBindingResource,
  ValidatingAdmissionPolicyResource,
  validatingAdmissionPolicyBindingResource,
  validatingAdmissionPolicyResource,
} from './validating-admission-policy-resources.ts';
import type { ExpressionChecker } from './validation.ts';
import {
  MutatingWebhookConfigurationResource,
  mutatingWebhookConfigurationResource,
  ValidatingWebhookConfigurationResource,
  validatingWebhookConfigurationResource,
} from './webhook-configuration-resources.ts';

/** The four kinds of admissionregistration.k8s.io/v1, for a server to serve together; CEL compiled on write (admissionExpressionChecker). */
export const admissionRegistrationResources: readonly ResourceDefinition[] = Object.freeze([
  MutatingWebhookConfigurationResource,
  ValidatingWebhookConfigurationResource,
  ValidatingAdmissionPolicyResource,
  ValidatingAdmissionPolicyBindingResource,
] as unknown as ResourceDefinition[]);

/** The four kinds with their CEL expressions compiled on write by another `checkExpression`. */
export function admissionRegistrationResourcesWith(opts: { checkExpression: ExpressionChecker }): readonly ResourceDefinition[] {
  return Object.freeze([
    mutatingWebhookConfigurationResource(opts.checkExpression),
    validatingWebhookConfigurationResource(opts.checkExpression),
    validatingAdmissionPolicyResource(opts.checkExpression),
    validatingAdmissionPolicyBindingResource(),
  ] as unknown as ResourceDefinition[]);
}

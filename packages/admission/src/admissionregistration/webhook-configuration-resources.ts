import type { KubeObject } from '@kapi/apimachinery';
import { AGE_COLUMN, defaultStrategy, defineResource, type ResourceDefinition } from '@kapi/registry';
import { admissionExpressionChecker } from './cel-expression-checker.ts';
import { defaultWebhookConfiguration } from './defaults.ts';
import { mutatingWebhookConfigurationSchema, validatingWebhookConfigurationSchema } from './schemas.ts';
import { guardedValidation, guardShape } from './shape-guard.ts';
import { ADMISSION_REGISTRATION_GROUP, type MutatingWebhookConfiguration, type ValidatingWebhookConfiguration } from './types.ts';
import { type ExpressionChecker, validateWebhookConfigurationCreate, validateWebhookConfigurationUpdate } from './validation.ts';

/** kube's `api-extensions` category: the kinds that extend the API server (`kubectl get api-extensions`). */
export const API_EXTENSIONS_CATEGORY = 'api-extensions';

const WEBHOOKS_COLUMN = {
  name: 'Webhooks',
  type: 'integer',
  jsonPath: '.webhooks',
  description: 'Webhooks indicates the number of webhooks registered in this configuration',
  value: (o: KubeObject) => ((o as { webhooks?: unknown[] }).webhooks ?? []).length,
} as const;

/**
 * pkg/registry/admissionregistration/{mutating,validating}webhookconfiguration's strategy: generation 1 on create and
 * bumped when the webhooks change, no create on update, updates name the resourceVersion they replace. `checker`
 * compiles matchConditions' CEL (kube's validation compiles them too).
 */
function webhookConfigurationResource<T extends KubeObject>(mutating: boolean, checker?: ExpressionChecker): ResourceDefinition<T> {
  const base = defaultStrategy<KubeObject>({ namespaced: false, subresources: { status: false }, selectableFields: [] });
  const schema = mutating ? mutatingWebhookConfigurationSchema : validatingWebhookConfigurationSchema;
  return defineResource({
    group: ADMISSION_REGISTRATION_GROUP,
    kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    plural: mutating ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations',
    namespaced: false,
    categories: [API_EXTENSIONS_CATEGORY],
    versions: [{ name: 'v1', schema }],
    printerColumns: [WEBHOOKS_COLUMN, AGE_COLUMN],
    strategy: {
      prepareForCreate: (ctx, obj) => {
        guardShape(schema, obj, () => defaultWebhookConfiguration(obj, mutating), undefined);
        base.prepareForCreate(ctx, obj);
      },
      prepareForUpdate: (ctx, obj, old) => {
        guardShape(schema, obj, () => defaultWebhookConfiguration(obj, mutating), undefined);
        base.prepareForUpdate(ctx, obj, old);
      },
      // Guarded: a body of the wrong shape is refused by the schema's type errors, not a 500 from validation.
      validate: (_ctx, obj) =>
        guardedValidation(schema, obj, () => validateWebhookConfigurationCreate(obj as MutatingWebhookConfiguration, mutating, checker)),
      validateUpdate: (_ctx, obj, old) =>
        guardedValidation(schema, obj, () =>
          validateWebhookConfigurationUpdate(obj as MutatingWebhookConfiguration, old as MutatingWebhookConfiguration, mutating, checker),
        ),
      warningsOnCreate: () => [],
      warningsOnUpdate: () => [],
      allowCreateOnUpdate: () => false,
      allowUnconditionalUpdate: () => false,
    },
  }) as unknown as ResourceDefinition<T>;
}

export function mutatingWebhookConfigurationResource(checker?: ExpressionChecker): ResourceDefinition<MutatingWebhookConfiguration> {
  return webhookConfigurationResource<MutatingWebhookConfiguration>(true, checker);
}

export function validatingWebhookConfigurationResource(checker?: ExpressionChecker): ResourceDefinition<ValidatingWebhookConfiguration> {
  return webhookConfigurationResource<ValidatingWebhookConfiguration>(false, checker);
}

/** admissionregistration.k8s.io/v1 MutatingWebhookConfiguration; matchConditions compiled on write, as kube does. */
export const MutatingWebhookConfigurationResource = mutatingWebhookConfigurationResource(admissionExpressionChecker());
/** admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration; matchConditions compiled on write, as kube does. */
export const ValidatingWebhookConfigurationResource = validatingWebhookConfigurationResource(admissionExpressionChecker());

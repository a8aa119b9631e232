// kube's util/webhook checks, served by @kapi/admission's implementation (admission webhooks use the same).
export { validateWebhookService, validateWebhookURL } from '@kapi/admission';
export type { ConversionRequest, ConversionResponse, ConversionReview } from './conversion/conversion-review.ts';
export { type ConversionCRD, type CRDConverter, converterForCRD } from './conversion/converter-factory.ts';
export { type CRConverter, nopConverter, type UnstructuredList } from './conversion/cr-converter.ts';
export { type CRDObjectConversion, crdConversion } from './conversion/crd-conversion.ts';
export { type ConversionTarget, DelegatingConverter, type ObjectList } from './conversion/delegating-converter.ts';
export {
  defaultServiceResolver,
  ErrCallingWebhook,
  HookClient,
  type HookClientOptions,
  type ServiceReference,
  type ServiceResolver,
  type WebhookClientConfig,
} from './conversion/hook-client.ts';
export { type WebhookConversion, WebhookConverter, type WebhookConverterOptions } from './conversion/webhook-converter.ts';
export {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  ESTABLISHED_INITIAL_NAMES_ACCEPTED,
  ESTABLISHED_INSTALLING,
  ESTABLISHED_NOT_ACCEPTED,
  findCRDCondition,
  isCRDConditionEquivalent,
  isCRDConditionTrue,
  NAMES_ACCEPTED_NO_CONFLICTS,
  setCRDCondition,
  TERMINATING_INSTANCE_DELETION_COMPLETED,
  TERMINATING_INSTANCE_DELETION_IN_PROGRESS,
  TERMINATING_INSTANCE_DELETION_PENDING,
  TERMINATING_NEVER_ESTABLISHED,
  terminatingFailed,
} from './crd/conditions.ts';
export { markCustomResourceDefinitionForDeletion } from './crd/crd-deletion.ts';
export { CustomResourceDefinitionResource, customResourceDefinitionResource, validateDefaultValue } from './crd/crd-resource.ts';
export { setDefaultsCustomResourceDefinition } from './crd/defaults.ts';
export { type ValidatedFieldPath, validFieldPath } from './crd/field-path.ts';
export { type InternalConversion, type InternalSpec, type InternalVersion, toInternalSpec } from './crd/internal-spec.ts';
export {
  calculateNamesAndConditions,
  establishingStatusUpdate,
  type NamingOutcome,
  namingStatusUpdate,
} from './crd/naming.ts';
export type {
  ConditionStatus,
  ConversionStrategyType,
  CustomResourceColumnDefinition,
  CustomResourceConversion,
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionConditionType,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionStatus,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
  CustomResourceSubresources,
  CustomResourceValidation,
  ResourceScope,
  SelectableField,
  ServiceReference as CRDServiceReference,
  WebhookClientConfig as CRDWebhookClientConfig,
  WebhookConversion as CRDWebhookConversion,
} from './crd/types.ts';
export { APIEXTENSIONS_GROUP } from './crd/types.ts';
export {
  type CRDValidationOptions,
  isDNS1035Label,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatusUpdate,
  validateCustomResourceDefinitionUpdate,
  validateNames,
} from './crd/validation.ts';
export { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './schema/defaulting.ts';
export { validateEmbeddedResources } from './schema/embedded-object-meta.ts';
export type {
  ExternalDocumentation,
  FieldValueErrorReason,
  JSON,
  JSONSchemaProps,
  ValidationRule,
} from './schema/json-schema-props.ts';
export { newStructural } from './schema/new-structural.ts';
export { type PruneOptions, prune, unknownFieldMessage } from './schema/pruning.ts';
export type {
  Extensions,
  Generic,
  NestedValueValidation,
  Structural,
  StructuralOrBool,
  ValueValidation,
} from './schema/structural.ts';
export { toJSONSchemaProps } from './schema/to-json-schema-props.ts';
export { type CRDSchemaOptions, type CRDSchemaResult, validateCRDSchema } from './schema/validate-crd-schema.ts';
export { type ValidateDefaultsOptions, type ValueValidator, validateDefaults } from './schema/validate-defaults.ts';
export { validateSchemaRules } from './schema/validate-schema-rules.ts';
export { validateStructural } from './schema/validate-structural.ts';
export { APIExtensions, type APIExtensionsOptions } from './server/apiextensions.ts';
export { type CustomResourceServingOptions, customResourceServingDefinition } from './server/custom-resource-definition-serving.ts';
export { structuralVersionSchema } from './structural-version-schema.ts';
export { schemaCelType, withTypeAndObjectMeta } from './validation/cel-decl-type.ts';
export { type CompiledRule, compileRules } from './validation/cel-rules.ts';
export {
  type CelValidateOptions,
  CelValidator,
  MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
  RUNTIME_CEL_COST_BUDGET,
} from './validation/cel-validator.ts';
export {
  type CompiledValidator,
  compileCustomObjectValidator,
  compileSchemaValidator,
  type SchemaValidatorOptions,
  type ValidateCustomObjectOptions,
  validateCustomObject,
} from './validation/custom-object-validator.ts';
export { kindCelTypes } from './validation/kind-cel-types.ts';
export { validateListSetsAndMaps } from './validation/list-type.ts';

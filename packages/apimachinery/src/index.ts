export { asGoDecodes } from './as-go-decodes.ts';
export { type Clock, FakeClock, realClock, type TimerHandle } from './clock.ts';
export { cleanPath, type DecodedContinue, decodeContinue, encodeContinue } from './continue-token.ts';
export {
  type FieldError,
  type FieldErrorType,
  fieldErrorBody,
  fieldErrorMessage,
  fieldErrors,
  fieldErrorsMessage,
  OMIT_VALUE,
} from './field-error.ts';
export * from './fieldpath/index.ts';
export {
  everythingFields,
  type FieldOperator,
  type FieldRequirement,
  type FieldSelector,
  type Fields,
  fieldSelectorFromSet,
  parseFieldSelector,
} from './fields.ts';
export { goFloat, goNumber, goSharpV, isInt64 } from './go-format.ts';
export {
  formatAPIVersionKind,
  formatGroupKind,
  formatGroupResource,
  formatGroupVersion,
  formatGroupVersionKind,
  type GroupKind,
  type GroupResource,
  type GroupVersion,
  type GroupVersionKind,
  type GroupVersionResource,
  groupVersionKindFromAPIVersion,
  groupVersionKindOf,
  parseGroupResource,
  parseGroupVersion,
} from './group-version.ts';
export {
  checkJsonDepth,
  copyJson,
  exceedsJsonDepth,
  getOwn,
  isJsonObject,
  type JsonObject,
  type JsonRendering,
  jsonEqual,
  MAX_JSON_DEPTH,
  renderJson,
  setOwn,
  stringifyJson,
} from './json-data.ts';
export {
  type DuplicateScanOptions,
  duplicateFieldMessage,
  duplicateKeysIn,
  type JsonWithDuplicates,
  parseJsonDetectingDuplicates,
} from './json-decode.ts';
export {
  everythingLabels,
  goQuote,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
  type Labels,
  labelSelectorFromMetav1,
  labelSelectorFromSet,
  type MetaV1LabelSelector,
  parseLabelSelector,
} from './labels.ts';
export { mayHoldLoneSurrogates, replaceLoneSurrogates } from './lone-surrogates.ts';
export * from './merge/index.ts';
export { formatMicroTime } from './micro-time.ts';
export {
  generateNameSuffix,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  maskTrailingDash,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  simpleNameGenerator,
} from './names.ts';
export { applyJsonPatch, applyMergePatch, createMergePatch, type JsonPatchOperation } from './patch.ts';
export { formatResourceVersion, parseResourceVersion } from './resource-version.ts';
export * from './status-error.ts';
export { type Comparison, compare as compareTyped } from './typed/compare.ts';
export { type FromOpenAPIOptions, fromOpenAPI, type OpenAPISchemaObject, type TypedSchema } from './typed/from-openapi.ts';
export { ValidationErrors } from './typed/helpers.ts';
export { toFieldSet } from './typed/to-field-set.ts';
export { validate as validateTyped } from './typed/validate.ts';
export type {
  KubeObject,
  ListMeta,
  ManagedFieldsEntry,
  ObjectList,
  ObjectMeta,
  OwnerReference,
  Status,
  StatusCause,
  StatusDetails,
  TypeMeta,
  WatchEvent,
  WatchEventType,
} from './types.ts';
export { INITIAL_EVENTS_END_ANNOTATION } from './types.ts';
export { strictDecodingWarnings, yamlDuplicateKeyMessage, yamlStrictDecodingError } from './yaml-strict-errors.ts';

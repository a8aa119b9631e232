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
export {
  formatGroupKind,
  formatGroupResource,
  formatGroupVersion,
  groupVersionKindOf,
  parseGroupResource,
  parseGroupVersion,
  type GroupKind,
  type GroupResource,
  type GroupVersion,
  type GroupVersionKind,
  type GroupVersionResource,
} from './group-version.ts';
export {
  fieldErrorBody,
  fieldErrorMessage,
  fieldErrors,
  fieldErrorsMessage,
  OMIT_VALUE,
  type FieldError,
  type FieldErrorType,
} from './field-error.ts';
export * from './status-error.ts';
export { formatResourceVersion, parseResourceVersion } from './resource-version.ts';
export { cleanPath, decodeContinue, encodeContinue, type DecodedContinue } from './continue-token.ts';
export { FakeClock, realClock, type Clock, type TimerHandle } from './clock.ts';
export {
  everythingLabels,
  labelSelectorFromMetav1,
  labelSelectorFromSet,
  parseLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type Labels,
  type LabelSelector,
  type MetaV1LabelSelector,
} from './labels.ts';
export {
  everythingFields,
  fieldSelectorFromSet,
  parseFieldSelector,
  type FieldOperator,
  type FieldRequirement,
  type Fields,
  type FieldSelector,
} from './fields.ts';
export {
  generateNameSuffix,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  maskTrailingDash,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  simpleNameGenerator,
} from './names.ts';
export { applyJsonPatch, applyMergePatch, createMergePatch, type JsonPatchOperation } from './patch.ts';

export { ConfigMap } from './builtins/configmap.ts';
export { ControllerLoop, type ControllerLoopOptions, type InformerLoop } from './builtins/controller-loop.ts';
export { Event } from './builtins/event.ts';
export { coreToEventsV1, EventsV1Event, eventsV1ToCore } from './builtins/events-k8s-io-event.ts';
export { GarbageCollector, type GarbageCollectorOptions, type ServedResources } from './builtins/garbage-collector.ts';
export { Lease } from './builtins/lease.ts';
export { type ListAndWatchOptions, type ListWatchSource, listAndWatch } from './builtins/list-and-watch.ts';
export { checkConditionTimes, checkMicroTimes, checkTimes } from './builtins/micro-time.ts';
export {
  FINALIZER_KUBERNETES,
  LABEL_METADATA_NAME,
  Namespace,
  type NamespaceCondition,
  shouldDeleteNamespaceDuringUpdate,
} from './builtins/namespace.ts';
export { NAMESPACE_CONDITION_TYPES, type NamespaceConditionType } from './builtins/namespace-conditions.ts';
export { NamespaceController, type NamespaceControllerOptions } from './builtins/namespace-controller.ts';
export { NAMESPACE_TERMINATING_CAUSE, NamespaceLifecycle } from './builtins/namespace-lifecycle.ts';
export { NamespaceRegistry, type NamespaceRegistryOptions } from './builtins/namespace-registry.ts';
export type { ObjectIdentity } from './builtins/owner-graph.ts';
export { Secret } from './builtins/secret.ts';
export { ServiceAccount } from './builtins/service-account.ts';
export { ServiceAccountsController, type ServiceAccountsControllerOptions } from './builtins/service-accounts-controller.ts';
export { warningEventRecorder } from './builtins/warning-event.ts';
export { WorkQueue, type WorkQueueOptions } from './builtins/work-queue.ts';
export { answerConversionReview } from './conversion-review.ts';
export { ConversionError, convertObject, convertObjects } from './convert.ts';
export {
  type CRDConversion,
  CRDManifestError,
  type CRDManifestOptions,
  type CRDNames,
  type CRDPrinterColumn,
  type CRDVersion,
  type CRDWebhookClientConfig,
  type CustomResourceDefinitionManifest,
  customResourceDefinitionOf,
  customResourceSchemaOf,
  manifestsToYAML,
} from './crd-manifest.ts';
export { defineResource, ResourceDefinitionError } from './define-resource.ts';
export { invalidError } from './invalid-error.ts';
export {
  atomicList,
  atomicMap,
  intOrString,
  type KubeFieldMeta,
  kubeMetaOf,
  listMap,
  listSet,
  omitEmpty,
  preserveUnknownFields,
  withKubeMeta,
} from './kube-extensions.ts';
export { goSharpV, validateListSetsAndMaps } from './list-type.ts';
export { FIELD_MANAGER_MAX_LENGTH, isPrintable, managerOrUserAgent, prefixFromUserAgent } from './managed-fields/user-agent.ts';
export { labelSelectorSchema, OBJECT_META_OPENAPI } from './metav1.ts';
export type { ObjectConversion } from './object-conversion.ts';
export { type JSONSchema, toOpenAPISchema } from './openapi.ts';
export type {
  Converter,
  ObjectOf,
  ObjectSchema,
  PrinterColumn,
  ProxySubresource,
  ProxySubresourceLocation,
  ResourceDefinition,
  ResourceInput,
  ResourceObject,
  ResourceVersion,
  ScaleSubresource,
  SelectableField,
  StorageSchemaOf,
  StoredWith,
  Subresources,
  SubresourcesInput,
  VersionInput,
} from './resource-definition.ts';
export { Scheme, type VersionedDefinition } from './scheme.ts';
export { readFieldPath } from './simple-path.ts';
export { ConvertingStorage, type StorageConversion } from './store/converting-storage.ts';
export type { RequestBody } from './store/decode.ts';
export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './store/deletion.ts';
export { type Scale, ScaleREST, type ScaleUpdateOptions, scaleFromObject } from './store/scale.ts';
export { Store, type StoreOptions } from './store/store.ts';
export { StoreKeys } from './store/store-keys.ts';
export { rfc3339Seconds } from './store/timestamp.ts';
export type {
  DeleteResult,
  FieldValidation,
  PatchType,
  PropagationPolicy,
  RequestContext,
  StoreCreateOptions,
  StoreDeleteOptions,
  StoreGetOptions,
  StoreList,
  StoreListOptions,
  StorePatchOptions,
  StoreUpdateOptions,
  StoreWatchOptions,
  UpdateResult,
  WriteAdmission,
  WriteResult,
} from './store/types.ts';
export {
  applyStrategicMergePatch,
  EMPTY_PATCH_META,
  type PatchMeta,
  type PatchMetaSpec,
  patchMetaFor,
  patchMetaForOpenAPI,
  patchMetaForSchema,
  patchMetaFromSpec,
} from './strategic-merge/index.ts';
export {
  type CreateStrategy,
  defaultStrategy,
  type Strategy,
  type StrategyContext,
  type StrategySubject,
  type UpdateStrategy,
} from './strategy.ts';
export { type ColumnPath, ColumnPathError, compileColumnPath } from './table/column-path.ts';
export { humanDuration, shortHumanDuration } from './table/human-duration.ts';
export { parseIncludeObject } from './table/include-object.ts';
export {
  AGE_COLUMN,
  CREATED_AT_COLUMN,
  OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION,
  OBJECT_META_NAME_DESCRIPTION,
  type TableConvertor,
  type TableOptions,
  type TableSubject,
  tableConvertor,
  tableConvertorFor,
  toTable,
  versionColumns,
} from './table/table-convertor.ts';
export type {
  IncludeObjectPolicy,
  PartialObjectMetadata,
  Table,
  TableCell,
  TableColumnDefinition,
  TableRow,
} from './table/table-types.ts';
export { findUnknownFields, unknownFieldMessage } from './unknown-fields.ts';
export { type ParseResult, parseObject, type ValidateOptions, validateObject } from './validate-object.ts';
export {
  finalizerWarnings,
  type NameValidator,
  type ObjectMetaRules,
  objectMetaTypeErrors,
  validateObjectMeta,
  validateOwnerReferences,
} from './validate-object-meta.ts';
export type { VersionSchema } from './version-schema.ts';
export { zodVersionSchema } from './zod-version-schema.ts';

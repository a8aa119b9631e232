import { copyJson, jsonEqual } from '@kapi/apimachinery';
import {
  atomicList,
  CREATED_AT_COLUMN,
  checkConditionTimes,
  defineResource,
  preserveUnknownFields,
  type ResourceDefinition,
  type ResourceVersion,
  rfc3339Seconds,
  type VersionSchema,
  withKubeMeta,
} from '@kapi/registry';
import { z } from 'zod';
import type { ValueValidator } from '../schema/validate-defaults.ts';
import { compileSchemaValidator } from '../validation/custom-object-validator.ts';
import { markCustomResourceDefinitionForDeletion } from './crd-deletion.ts';
import { crdUnknownFields } from './crd-unknown-fields.ts';
import { setDefaultsCustomResourceDefinition } from './defaults.ts';
import { APIEXTENSIONS_GROUP, type CustomResourceDefinition } from './types.ts';
import {
  type CRDValidationOptions,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatusUpdate,
  validateCustomResourceDefinitionUpdate,
} from './validation.ts';

/**
 * The body's shape as far as decoding goes: everything the CRD validation reads is checked there, in kube's words, so
 * the schema keeps what it does not declare (JSONSchemaProps is open-ended) and only insists on the field types.
 */
const open = <S extends z.ZodRawShape>(shape: S) => preserveUnknownFields(z.object(shape));
const str = () => z.string().optional();
// The list types are kube's (apiextensions/v1 types.go): every list atomic but status.conditions, keyed by type.
const strings = () => atomicList(z.array(z.string())).optional();
const names = open({ plural: str(), singular: str(), shortNames: strings(), kind: str(), listKind: str(), categories: strings() });
const crdSchema = z.object({
  spec: open({
    group: str(),
    scope: str(),
    names: names.optional(),
    versions: atomicList(
      z.array(
        open({
          name: str(),
          served: z.boolean().optional(),
          storage: z.boolean().optional(),
          deprecated: z.boolean().optional(),
          deprecationWarning: str(),
          // The schema itself is checked by the CRD validation (checkSchemaShape first): JSONSchemaProps is open-ended.
          schema: open({}).optional(),
          subresources: open({
            status: open({}).optional(),
            scale: open({ specReplicasPath: str(), statusReplicasPath: str(), labelSelectorPath: str() }).optional(),
          }).optional(),
          additionalPrinterColumns: atomicList(
            z.array(open({ name: str(), type: str(), format: str(), description: str(), priority: z.int().optional(), jsonPath: str() })),
          ).optional(),
          selectableFields: atomicList(z.array(open({ jsonPath: str() }))).optional(),
        }),
      ),
    ).optional(),
    conversion: open({
      strategy: str(),
      webhook: open({
        conversionReviewVersions: strings(),
        clientConfig: open({
          url: str(),
          caBundle: str(),
          service: open({ namespace: str(), name: str(), path: str(), port: z.int().optional() }).optional(),
        }).optional(),
      }).optional(),
    }).optional(),
    preserveUnknownFields: z.boolean().optional(),
  }).describe('spec describes how the user wants the resources to appear'),
  status: open({
    // +listType=map +listMapKey=type, without a patch strategy (strategic merge patches replace it).
    conditions: withKubeMeta(z.array(open({ type: str(), status: str(), lastTransitionTime: str(), reason: str(), message: str() })), {
      listType: 'map',
      listMapKeys: ['type'],
    }).optional(),
    acceptedNames: names.optional(),
    storedVersions: strings(),
  })
    .describe('status indicates the actual state of the CustomResourceDefinition')
    .optional(),
});

/**
 * Whether the object has the JSON types the CRD's fields need. The Store reports a body that has not (with the
 * schema's errors); the strategy's defaults and kube's validation only run on one that has, as kube's run on a
 * decoded object.
 */
function wellTyped(obj: unknown): obj is CustomResourceDefinition {
  return crdSchema.safeParse(obj).success;
}

/**
 * How kube's ValidateDefaults checks a schema default: ValidateCustomResource against the schema it sits in, every
 * format kept, errors under the default's own path.
 */
export const validateDefaultValue: ValueValidator = (path, value, schema) =>
  compileSchemaValidator(schema, { stripUnsupportedFormats: false }).validate(value, { basePath: path });

/**
 * kube decodes a condition's lastTransitionTime as metav1.Time (RFC 3339): another string written through the status
 * subresource is a 400, never stored for Go clients to fail decoding the CRD.
 */
function validateStatusUpdate(crd: CustomResourceDefinition): ReturnType<typeof validateCustomResourceDefinitionStatusUpdate> {
  checkConditionTimes('CustomResourceDefinition', 'v1', crd.status?.conditions);
  return validateCustomResourceDefinitionStatusUpdate(crd);
}

/** Appends the storage version to status.storedVersions when it is not there yet (the strategy's prepare step). */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = crd.spec.versions?.find((v) => v.storage);
  if (!storage) return;
  crd.status ??= {};
  const stored = crd.status.storedVersions ?? [];
  if (!stored.includes(storage.name)) crd.status.storedVersions = [...stored, storage.name];
}

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition with kube's registry strategy (registry/customresourcedefinition):
 * cluster-scoped, short names crd and crds, category api-extensions, a status subresource, kube's default table (Name,
 * Created At). Objects are defaulted as kube's v1 decoding does (setDefaultsCustomResourceDefinition); create clears
 * status (acceptedNames empty) and records the storage version in status.storedVersions, generation 1; an update keeps
 * the stored status, appends a new storage version to storedVersions and bumps generation when the spec changes;
 * status is written only through the status subresource. Validation is kube's (validateCustomResourceDefinition…).
 * `options.validateValue` checks schema defaults (default {@link validateDefaultValue}). The first delete of a CRD only
 * marks it (deletionTimestamp, the customresourcecleanup finalizer, Terminating), as kube's does.
 */
export function customResourceDefinitionResource(
  options: CRDValidationOptions = { validateValue: validateDefaultValue },
): ResourceDefinition<CustomResourceDefinition> {
  return withStrictFields(
    defineResource({
      group: APIEXTENSIONS_GROUP,
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      namespaced: false,
      versions: [{ name: 'v1', schema: crdSchema }],
      subresources: { status: true },
      printerColumns: [CREATED_AT_COLUMN],
      strategy: {
        prepareForCreate: (_ctx, obj) => {
          const crd = obj as unknown as CustomResourceDefinition;
          crd.status = { acceptedNames: { plural: '', kind: '' } };
          crd.metadata.generation = 1;
          const typed = wellTyped(crd);
          if (typed) setDefaultsCustomResourceDefinition(crd);
          if (typed) recordStorageVersion(crd);
        },
        prepareForUpdate: (_ctx, obj, oldObj) => {
          const crd = obj as unknown as CustomResourceDefinition;
          const old = oldObj as unknown as CustomResourceDefinition;
          if (old.status === undefined) delete crd.status;
          else crd.status = copyJson(old.status);
          const typed = wellTyped(crd);
          if (typed) setDefaultsCustomResourceDefinition(crd);
          const gen = old.metadata.generation ?? 0;
          crd.metadata.generation = jsonEqual(crd.spec, old.spec) ? gen : gen + 1;
          if (typed) recordStorageVersion(crd);
        },
        validate: (_ctx, obj) => (wellTyped(obj) ? validateCustomResourceDefinition(obj, options) : []),
        validateUpdate: (ctx, obj, old) =>
          !wellTyped(obj)
            ? []
            : ctx.subresource === 'status'
              ? validateStatusUpdate(obj as unknown as CustomResourceDefinition)
              : validateCustomResourceDefinitionUpdate(
                  obj as unknown as CustomResourceDefinition,
                  old as unknown as CustomResourceDefinition,
                  options,
                ),
        warningsOnCreate: () => [],
        warningsOnUpdate: () => [],
        allowCreateOnUpdate: () => false,
        allowUnconditionalUpdate: () => false,
        // kube's CRD REST Delete: the first delete only marks the CRD (its instances go first, see the finalizer controller).
        prepareForDelete: (obj, nowMs) => {
          if (!obj.metadata.deletionTimestamp)
            markCustomResourceDefinitionForDeletion(obj as unknown as CustomResourceDefinition, rfc3339Seconds(nowMs));
        },
      },
    }) as unknown as ResourceDefinition<CustomResourceDefinition>,
  );
}

/**
 * The CRD kind with kube's strict decoding: its zod schema keeps unknown fields (the CRD validation reads them in kube's
 * words), so fieldValidation's unknown fields are those apiextensions.k8s.io/v1 does not declare (crdUnknownFields).
 */
function withStrictFields(def: ResourceDefinition<CustomResourceDefinition>): ResourceDefinition<CustomResourceDefinition> {
  const base = def.storageVersion.schema;
  const schema: VersionSchema = {
    validate: (body, opts) => base.validate(body, opts),
    listSetAndMapErrors: (body) => base.listSetAndMapErrors(body),
    decode: (body) => base.decode(body),
    ...(base.decodeNulls ? { decodeNulls: base.decodeNulls } : {}),
    unknownFields: crdUnknownFields,
    openAPI: () => base.openAPI(),
    patchMeta: () => base.patchMeta(),
  };
  const v1: ResourceVersion = Object.freeze({ ...def.storageVersion, schema });
  return Object.freeze({
    ...def,
    versions: Object.freeze([v1]),
    storageVersion: v1,
    version: (name: string) => (name === v1.name ? v1 : undefined),
  });
}

/** The CRD kind with kube's validation; schema defaults are checked for pruning and against their schema. */
export const CustomResourceDefinitionResource: ResourceDefinition<CustomResourceDefinition> = customResourceDefinitionResource();

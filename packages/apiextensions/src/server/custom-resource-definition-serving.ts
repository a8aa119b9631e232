import {
  defaultStrategy,
  type PrinterColumn,
  type ResourceDefinition,
  type ResourceVersion,
  type SelectableField,
  type Subresources,
} from '@kapi/registry';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../crd/types.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { structuralVersionSchema } from '../structural-version-schema.ts';

/** What serving a CRD's kind needs beside the CRD: how its versions convert (None when absent). */
export interface CustomResourceServingOptions {
  /** The kind's conversion between versions (crdConversion for a Webhook strategy); without it only apiVersion changes. */
  conversion?: ResourceDefinition['conversion'];
}

/** A version without a schema (not possible in apiextensions.k8s.io/v1) keeps every field, as kube's nil schema does. */
const OPEN_SCHEMA: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/**
 * Each version carries its own printer columns and selectable fields, as kube's CRD handler builds a table convertor
 * and a strategy per version: a Table or a field selector in a version reads that version's, on objects in it. A
 * version without columns gets kube's default Age column (the registry's table convertor does, for an empty list).
 */
function servedVersion(v: CustomResourceDefinitionVersion): ResourceVersion {
  return Object.freeze({
    name: v.name,
    served: v.served,
    storage: v.storage,
    schema: structuralVersionSchema(v.schema?.openAPIV3Schema ?? OPEN_SCHEMA),
    deprecated: v.deprecated === true,
    ...(v.deprecationWarning !== undefined ? { deprecationWarning: v.deprecationWarning } : {}),
    printerColumns: Object.freeze(printerColumnsOf(v)),
    selectableFields: Object.freeze(selectableFieldsOf(v)),
  });
}

function selectableFieldsOf(v: CustomResourceDefinitionVersion): SelectableField[] {
  return (v.selectableFields ?? []).map((f) => Object.freeze({ jsonPath: f.jsonPath }));
}

function printerColumnsOf(v: CustomResourceDefinitionVersion): PrinterColumn[] {
  return (v.additionalPrinterColumns ?? []).map((c) =>
    Object.freeze({
      name: c.name,
      type: c.type as PrinterColumn['type'],
      jsonPath: c.jsonPath,
      ...(c.description !== undefined ? { description: c.description } : {}),
      ...(c.priority !== undefined ? { priority: c.priority } : {}),
      ...(c.format !== undefined ? { format: c.format as NonNullable<PrinterColumn['format']> } : {}),
    }),
  );
}

/**
 * The registry definition kube-apiserver's CRD handler serves a CustomResourceDefinition's kind by: names from
 * status.acceptedNames (spec.names until some are accepted), every version with its structural schema (validation,
 * defaulting, pruning, OpenAPI), the storage version as the hub, and kube's custom resource strategy (status and scale
 * subresources, generation, no create-on-update, resourceVersion required on update). Printer columns and selectable
 * fields are each version's own (the definition-level sets are the storage version's); subresources are the storage
 * version's for every version (kube allows them per version; kapi's definition holds one set).
 * Strategic merge patch is refused (415), as for every custom resource. The CRD must be valid (its kind's validation
 * passed); a schema that is not structural throws.
 */
export function customResourceServingDefinition(
  crd: CustomResourceDefinition,
  options: CustomResourceServingOptions = {},
): ResourceDefinition {
  const spec = crd.spec;
  const accepted = crd.status?.acceptedNames;
  const names = accepted?.kind && accepted.plural ? accepted : spec.names;
  const versions = spec.versions.map(servedVersion);
  const storageVersion = versions.find((v) => v.storage) ?? versions[0];
  if (!storageVersion) throw new Error(`CustomResourceDefinition ${crd.metadata.name} has no versions`);
  const storageInput = spec.versions.find((v) => v.name === storageVersion.name) as CustomResourceDefinitionVersion;
  const scale = storageInput.subresources?.scale;
  const subresources: Subresources = Object.freeze({
    status: storageInput.subresources?.status !== undefined && storageInput.subresources.status !== null,
    ...(scale
      ? {
          scale: Object.freeze({
            specReplicasPath: scale.specReplicasPath,
            statusReplicasPath: scale.statusReplicasPath,
            ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath } : {}),
          }),
        }
      : {}),
  });
  const selectableFields = storageVersion.selectableFields ?? [];
  const namespaced = spec.scope === 'Namespaced';
  const kind = names.kind;
  const group = spec.group;
  const plural = spec.names.plural;
  const def = {
    group,
    kind,
    listKind: names.listKind || `${kind}List`,
    plural,
    singular: names.singular || kind.toLowerCase(),
    shortNames: Object.freeze([...(names.shortNames ?? [])]),
    categories: Object.freeze([...(names.categories ?? [])]),
    namespaced,
    versions: Object.freeze(versions),
    storageVersion,
    strategy: Object.freeze(defaultStrategy({ namespaced, subresources, selectableFields })),
    subresources,
    printerColumns: storageVersion.printerColumns ?? [],
    nameColumn: true,
    selectableFields: Object.freeze(selectableFields),
    groupKind: Object.freeze({ group, kind }),
    groupResource: Object.freeze({ group, resource: plural }),
    strategicMergePatch: false,
    ...(options.conversion ? { conversion: options.conversion } : {}),
    version: (name: string) => versions.find((v) => v.name === name),
  };
  return Object.freeze(def) as ResourceDefinition;
}

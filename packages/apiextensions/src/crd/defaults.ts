import type { CustomResourceDefinition, CustomResourceDefinitionSpec } from './types.ts';

/**
 * kube's apiextensions.k8s.io/v1 defaulting (apis/apiextensions/v1/defaults.go), in place: singular is the lowercased
 * kind, listKind `<kind>List`, conversion `None`, a webhook Service's port 443, and status.storedVersions the storage
 * version when empty.
 */
export function setDefaultsCustomResourceDefinition(crd: CustomResourceDefinition): void {
  if (crd.spec == null || typeof crd.spec !== 'object') return;
  setDefaultsSpec(crd.spec);
  if (!crd.status?.storedVersions?.length) {
    const storage = crd.spec.versions?.find((v) => v.storage);
    if (storage) crd.status = { ...crd.status, storedVersions: [storage.name] };
  }
}

function setDefaultsSpec(spec: CustomResourceDefinitionSpec): void {
  const names = spec.names;
  if (names && typeof names === 'object') {
    if (!names.singular) names.singular = (names.kind ?? '').toLowerCase();
    if (!names.singular) delete names.singular;
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && service.port == null) service.port = 443;
}

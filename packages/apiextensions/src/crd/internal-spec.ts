import { jsonEqual } from '@kapi/apimachinery';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec,
  CustomResourceSubresources,
  CustomResourceValidation,
  SelectableField,
  WebhookClientConfig,
} from './types.ts';

/**
 * The CRD spec in kube's internal form (apis/apiextensions/types.go), which its validation runs on and whose field
 * paths its errors name. Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec moves
 * a per-version schema, subresources, printer columns or selectable fields that every version shares to the top
 * (`spec.validation`, `spec.subresources`, `spec.additionalPrinterColumns`, `spec.selectableFields`), copies
 * versions[0].name to `spec.version`, and flattens `conversion.webhook` into `conversion.webhookClientConfig` and
 * `conversion.conversionReviewVersions`. So a one-version CRD's schema errors read
 * `spec.validation.openAPIV3Schema…`, as kube-apiserver's do.
 */
export interface InternalVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: CustomResourceValidation;
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

export interface InternalConversion {
  strategy: string;
  webhookClientConfig?: WebhookClientConfig;
  conversionReviewVersions?: string[];
}

export interface InternalSpec {
  group: string;
  version: string;
  names: CustomResourceDefinitionNames;
  scope: string;
  validation?: CustomResourceValidation;
  subresources?: CustomResourceSubresources;
  versions: InternalVersion[];
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
  conversion?: InternalConversion;
  /** Never absent for a v1 object: v1's bool becomes a non-nil pointer. */
  preserveUnknownFields: boolean;
}

type Hoisted = 'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields';

/** apiequality.Semantic.DeepEqual on optional fields: absent, null and an empty list are alike. */
function same(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v == null || (Array.isArray(v) && v.length === 0) ? undefined : v);
  const x = norm(a);
  const y = norm(b);
  return x === undefined || y === undefined ? x === y : jsonEqual(x, y);
}

/** The internal form of a (defaulted) v1 spec; `spec` is not changed, and the result shares its schemas. */
export function toInternalSpec(spec: CustomResourceDefinitionSpec): InternalSpec {
  // Shallow copies: only per-version fields are moved; schemas are shared, read-only (and may nest deep).
  const versions: InternalVersion[] = (spec.versions ?? []).map((v) => ({ ...v }));
  const out: InternalSpec = {
    group: spec.group ?? '',
    version: '',
    names: { ...(spec.names ?? { plural: '', kind: '' }) },
    scope: spec.scope ?? '',
    versions,
    preserveUnknownFields: spec.preserveUnknownFields === true,
  };
  const conv = spec.conversion;
  if (conv) {
    out.conversion = { strategy: conv.strategy ?? '' };
    if (conv.webhook) {
      if (conv.webhook.conversionReviewVersions) out.conversion.conversionReviewVersions = [...conv.webhook.conversionReviewVersions];
      if (conv.webhook.clientConfig) out.conversion.webhookClientConfig = conv.webhook.clientConfig;
    }
  }
  const first = versions[0];
  if (!first) return out;
  out.version = first.name;
  const hoist = (field: Hoisted, top: 'validation' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields'): boolean => {
    const value = first[field];
    if (!versions.every((v) => same(v[field], value))) return false;
    if (value != null && !(Array.isArray(value) && value.length === 0)) (out as unknown as Record<string, unknown>)[top] = value;
    for (const v of versions) delete v[field];
    return true;
  };
  const schemaHoisted = hoist('schema', 'validation');
  hoist('subresources', 'subresources');
  hoist('additionalPrinterColumns', 'additionalPrinterColumns');
  // Only beside the schema they are checked against, as kube's conversion does (validationIdentical && …).
  if (schemaHoisted) hoist('selectableFields', 'selectableFields');
  return out;
}

import type { KubeObject } from '@kapi/apimachinery';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition (apis/apiextensions/v1/types.go) as it travels on the wire. Field
 * names are the JSON names; Go's omitempty fields are optional.
 */

export const APIEXTENSIONS_GROUP = 'apiextensions.k8s.io';

export type ResourceScope = 'Cluster' | 'Namespaced';
export type ConversionStrategyType = 'None' | 'Webhook';
export type ConditionStatus = 'True' | 'False' | 'Unknown';
export type CustomResourceDefinitionConditionType =
  | 'Established'
  | 'NamesAccepted'
  | 'NonStructuralSchema'
  | 'Terminating'
  | 'KubernetesAPIApprovalPolicyConformant';

export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  /** Defaults to 443. */
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 PEM bundle. */
  caBundle?: string;
}

export interface WebhookConversion {
  clientConfig?: WebhookClientConfig;
  conversionReviewVersions: string[];
}

export interface CustomResourceConversion {
  strategy: ConversionStrategyType | (string & {});
  webhook?: WebhookConversion;
}

export interface CustomResourceValidation {
  openAPIV3Schema?: JSONSchemaProps;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface SelectableField {
  jsonPath: string;
}

export interface CustomResourceDefinitionVersion {
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

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: ResourceScope | (string & {});
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionCondition {
  type: CustomResourceDefinitionConditionType | (string & {});
  status: ConditionStatus | (string & {});
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

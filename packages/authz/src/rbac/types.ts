import type { KubeObject } from '@kapi/apimachinery';

/** rbac.authorization.k8s.io, the group of the four RBAC kinds. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** rbacv1.PolicyRule. `*` in verbs, apiGroups, resources matches anything; resources may be `r/sub` or `*\/sub`. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  /** Only in ClusterRoles: non-resource paths, a trailing `*` is a prefix match. */
  nonResourceURLs?: string[];
}

/** rbacv1.Subject: kind User, Group (apiGroup rbac.authorization.k8s.io) or ServiceAccount (apiGroup "", namespace set). */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** rbacv1.RoleRef: kind Role or ClusterRole, apiGroup rbac.authorization.k8s.io. Immutable on a binding. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** rbacv1.AggregationRule: the ClusterRole's rules are the union of those of the ClusterRoles any selector matches. */
export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

export type ClusterRoleBinding = RoleBinding;

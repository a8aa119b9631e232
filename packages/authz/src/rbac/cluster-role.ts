import { atomicList, atomicMap, CREATED_AT_COLUMN, defineResource, type ResourceDefinition } from '@kapi/registry';
import { z } from 'zod';
import { omitEmptyLists } from './omit-empty.ts';
import { rulesSchema } from './role.ts';
import { type ClusterRole, RBAC_GROUP } from './types.ts';
import { hasInvalidLabelValueInSelectors, validateClusterRole, validateClusterRoleUpdate, validateRBACName } from './validation.ts';

/**
 * metav1.LabelSelector as kube decodes it: an operator is any string and a key may be left out, so that validation
 * (not decoding) refuses them in kube's words ("not a valid selector operator").
 */
const labelSelectorSchema = atomicMap(
  z.object({
    matchLabels: z.record(z.string(), z.string()).optional(),
    matchExpressions: atomicList(
      z.array(
        z.object({
          key: z.string().optional(),
          operator: z.string().optional(),
          values: atomicList(z.array(z.string())).optional(),
        }),
      ),
    ).optional(),
  }),
);

const clusterRoleSchema = z.object({
  rules: rulesSchema.describe('Rules holds all the PolicyRules for this ClusterRole').optional(),
  aggregationRule: z
    .object({
      clusterRoleSelectors: atomicList(z.array(labelSelectorSchema))
        .describe(
          "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
        )
        .optional(),
    })
    .describe(
      'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.',
    )
    .optional(),
});

/**
 * rbac.authorization.k8s.io/v1 ClusterRole with pkg/registry/rbac/clusterrole's strategy: as Role's, cluster-scoped,
 * rules without namespaces (non-resource URLs allowed), an aggregationRule whose selectors must be valid — except that
 * an update may keep label values its stored selectors already had (kube's ratchet).
 */
export const ClusterRoleResource: ResourceDefinition<ClusterRole> = defineResource({
  group: RBAC_GROUP,
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
  versions: [{ name: 'v1', schema: clusterRoleSchema }],
  printerColumns: [CREATED_AT_COLUMN],
  validateName: validateRBACName,
  strategy: {
    prepareForCreate: (_ctx, role) => omitEmptyLists(role),
    prepareForUpdate: (_ctx, role) => omitEmptyLists(role),
    validate: (_ctx, role) => validateClusterRole(role as ClusterRole),
    validateUpdate: (_ctx, role, old) => {
      const opts = { allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelectors(old as ClusterRole) };
      // As kube's strategy: ValidateClusterRole, then ValidateClusterRoleUpdate, which repeats it.
      return [
        ...validateClusterRole(role as ClusterRole, opts),
        ...validateClusterRoleUpdate(role as ClusterRole, old as ClusterRole, opts),
      ];
    },
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowCreateOnUpdate: () => true,
    allowUnconditionalUpdate: () => true,
  },
}) as unknown as ResourceDefinition<ClusterRole>;

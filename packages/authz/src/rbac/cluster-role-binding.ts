import { defineResource, type ResourceDefinition } from '@kapi/registry';
import { bindingColumns, bindingSchema, defaultBinding } from './role-binding.ts';
import { type ClusterRoleBinding, RBAC_GROUP } from './types.ts';
import { validateClusterRoleBinding, validateClusterRoleBindingUpdate, validateRBACName } from './validation.ts';

const ROLE_REF_DOC =
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.';

/**
 * rbac.authorization.k8s.io/v1 ClusterRoleBinding with pkg/registry/rbac/clusterrolebinding's strategy: as
 * RoleBinding's, cluster-scoped, a roleRef only to a ClusterRole, and service account subjects that name their
 * namespace.
 */
export const ClusterRoleBindingResource: ResourceDefinition<ClusterRoleBinding> = defineResource({
  group: RBAC_GROUP,
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
  versions: [{ name: 'v1', schema: bindingSchema(ROLE_REF_DOC) }],
  printerColumns: bindingColumns('clusterRoleBinding', ROLE_REF_DOC),
  validateName: validateRBACName,
  strategy: {
    prepareForCreate: (_ctx, b) => defaultBinding(b),
    prepareForUpdate: (_ctx, b) => defaultBinding(b),
    validate: (_ctx, b) => validateClusterRoleBinding(b as ClusterRoleBinding),
    // As kube's strategy: ValidateClusterRoleBinding, then ValidateClusterRoleBindingUpdate, which repeats it.
    validateUpdate: (_ctx, b, old) => [
      ...validateClusterRoleBinding(b as ClusterRoleBinding),
      ...validateClusterRoleBindingUpdate(b as ClusterRoleBinding, old as ClusterRoleBinding),
    ],
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowCreateOnUpdate: () => true,
    allowUnconditionalUpdate: () => true,
  },
}) as unknown as ResourceDefinition<ClusterRoleBinding>;

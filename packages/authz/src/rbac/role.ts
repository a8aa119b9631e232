import { atomicList, CREATED_AT_COLUMN, defineResource, type ResourceDefinition } from '@kapi/registry';
import { z } from 'zod';
import { omitEmptyLists } from './omit-empty.ts';
import { RBAC_GROUP, type Role } from './types.ts';
import { validateRBACName, validateRole, validateRoleUpdate } from './validation.ts';

const strings = () => atomicList(z.array(z.string()));

/**
 * rbacv1.PolicyRule. Every field is optional here although kube's OpenAPI requires verbs: a rule without them is
 * refused by validation in kube's words ("verbs must contain at least one value"), not by the schema's.
 */
export const policyRuleSchema = z.object({
  verbs: strings()
    .describe("Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.")
    .optional(),
  apiGroups: strings()
    .describe(
      'APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "" represents the core API group and "*" represents all API groups.',
    )
    .optional(),
  resources: strings().describe("Resources is a list of resources this rule applies to. '*' represents all resources.").optional(),
  resourceNames: strings()
    .describe('ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.')
    .optional(),
  nonResourceURLs: strings()
    .describe(
      'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path Since non-resource URLs are not namespaced, this field is only applicable for ClusterRoles referenced from a ClusterRoleBinding. Rules can either apply to API resources (such as "pods" or "secrets") or non-resource URL paths (such as "/api"),  but not both.',
    )
    .optional(),
});

/** Rules of a Role or ClusterRole: atomic for patches and apply, as kube's `+listType=atomic`. */
export const rulesSchema = atomicList(z.array(policyRuleSchema));

const roleSchema = z.object({ rules: rulesSchema.describe('Rules holds all the PolicyRules for this Role').optional() });

/**
 * rbac.authorization.k8s.io/v1 Role with pkg/registry/rbac/role's strategy: no status and no generation, create on
 * update and unconditional updates allowed, names that are path segments. Tables are kube's default ones (Name,
 * Created At); there are no short names.
 */
export const RoleResource: ResourceDefinition<Role> = defineResource({
  group: RBAC_GROUP,
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
  versions: [{ name: 'v1', schema: roleSchema }],
  printerColumns: [CREATED_AT_COLUMN],
  validateName: validateRBACName,
  strategy: {
    prepareForCreate: (_ctx, role) => omitEmptyLists(role),
    prepareForUpdate: (_ctx, role) => omitEmptyLists(role),
    validate: (_ctx, role) => validateRole(role as Role),
    // kube's strategy runs ValidateRole and then ValidateRoleUpdate, which runs it again: its causes come twice.
    validateUpdate: (_ctx, role, old) => [...validateRole(role as Role), ...validateRoleUpdate(role as Role, old as Role)],
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowCreateOnUpdate: () => true,
    allowUnconditionalUpdate: () => true,
  },
}) as unknown as ResourceDefinition<Role>;

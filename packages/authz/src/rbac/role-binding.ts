import type { KubeObject } from '@kapi/apimachinery';
import {
  atomicList,
  atomicMap,
  defineResource,
  humanDuration,
  OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION,
  type PrinterColumn,
  type ResourceDefinition,
} from '@kapi/registry';
import { z } from 'zod';
import { omitEmptyLists } from './omit-empty.ts';
import { RBAC_GROUP, type RoleBinding, type Subject } from './types.ts';
import { validateRBACName, validateRoleBinding, validateRoleBindingUpdate } from './validation.ts';

/**
 * rbacv1.Subject, atomic as kube's `+structType=atomic`. kind and name are left optional (kube's OpenAPI requires
 * them) so that validation words a missing one as kube-apiserver does.
 */
const subjectSchema = atomicMap(
  z.object({
    kind: z
      .string()
      .describe(
        'Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount". If the Authorizer does not recognized the kind value, the Authorizer should report an error.',
      )
      .optional(),
    apiGroup: z
      .string()
      .describe(
        'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
      )
      .optional(),
    name: z.string().describe('Name of the object being referenced.').optional(),
    namespace: z
      .string()
      .describe(
        'Namespace of the referenced object.  If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.',
      )
      .optional(),
  }),
);

/** rbacv1.RoleRef, atomic as kube's `+structType=atomic`. */
const roleRefSchema = atomicMap(
  z.object({
    apiGroup: z.string().describe('APIGroup is the group for the resource being referenced').optional(),
    kind: z.string().describe('Kind is the type of resource being referenced').optional(),
    name: z.string().describe('Name is the name of resource being referenced').optional(),
  }),
);

/** The fields of a RoleBinding or ClusterRoleBinding; `roleRefDoc` is the kind's own description of roleRef. */
export function bindingSchema(roleRefDoc: string) {
  return z.object({
    subjects: atomicList(z.array(subjectSchema)).describe('Subjects holds references to the objects the role applies to.').optional(),
    roleRef: roleRefSchema.describe(roleRefDoc).optional(),
  });
}

/**
 * SetDefaults_RoleBinding / _ClusterRoleBinding and SetDefaults_Subject of rbac/v1: roleRef's apiGroup, and a
 * subject's by its kind (rbac's for User and Group, "" for ServiceAccount). Applied to the decoded object before
 * validation, as kube's decoder defaults it (nulls read as zero values first); anything of the wrong shape is left for
 * validation to refuse. A subject's apiGroup and namespace are `omitempty` in Go: an empty one (a ServiceAccount's
 * default among them) is left out, as kube-apiserver stores and returns it.
 */
export function defaultBinding(obj: KubeObject): void {
  omitEmptyLists(obj);
  const b = obj as { roleRef?: unknown; subjects?: unknown };
  if (b.roleRef === undefined) b.roleRef = { apiGroup: RBAC_GROUP };
  else if (typeof b.roleRef === 'object' && b.roleRef !== null && !Array.isArray(b.roleRef)) {
    const ref = b.roleRef as { apiGroup?: unknown };
    if (ref.apiGroup === undefined || ref.apiGroup === '') ref.apiGroup = RBAC_GROUP;
  }
  if (!Array.isArray(b.subjects)) return;
  for (const s of b.subjects as unknown[]) {
    if (typeof s !== 'object' || s === null) continue;
    const subject = s as { kind?: unknown; apiGroup?: unknown; namespace?: unknown };
    if (subject.namespace === '') delete subject.namespace;
    if (subject.apiGroup !== undefined && subject.apiGroup !== '') continue;
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_GROUP;
    else delete subject.apiGroup;
  }
}

/** rbac.SubjectsStrings: users, groups and service accounts (`namespace/name`) of a binding. */
function subjectsOf(obj: KubeObject, kind: 'User' | 'Group' | 'ServiceAccount'): string {
  const subjects = ((obj as RoleBinding).subjects ?? []) as Subject[];
  return subjects
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name))
    .join(', ');
}

/** translateTimestampSince: the age of the object, `<unknown>` without a creation time. */
function age(obj: KubeObject, nowMs: number): string {
  const t = Date.parse(obj.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? '<unknown>' : humanDuration(nowMs - t);
}

/** kube's printers for RoleBinding and ClusterRoleBinding (`what` is "roleBinding" or "clusterRoleBinding"). */
export function bindingColumns(what: string, roleRefDoc: string): PrinterColumn[] {
  return [
    {
      name: 'Role',
      type: 'string',
      jsonPath: '.roleRef',
      description: roleRefDoc,
      value: (o) => `${(o as RoleBinding).roleRef?.kind ?? ''}/${(o as RoleBinding).roleRef?.name ?? ''}`,
    },
    {
      name: 'Age',
      type: 'string',
      jsonPath: '.metadata.creationTimestamp',
      description: OBJECT_META_CREATION_TIMESTAMP_DESCRIPTION,
      value: age,
    },
    subjectColumn('Users', 'User', what),
    subjectColumn('Groups', 'Group', what),
    subjectColumn('ServiceAccounts', 'ServiceAccount', what),
  ];
}

/** A wide column listing the binding's subjects of one kind (kube's printer: Users, Groups, ServiceAccounts). */
function subjectColumn(name: string, kind: 'User' | 'Group' | 'ServiceAccount', what: string): PrinterColumn {
  return {
    name,
    type: 'string',
    jsonPath: '.subjects',
    priority: 1,
    description: `${name} in the ${what}`,
    value: (o) => subjectsOf(o, kind),
  };
}

const ROLE_REF_DOC =
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.';

/**
 * rbac.authorization.k8s.io/v1 RoleBinding with pkg/registry/rbac/rolebinding's strategy: v1's defaults, no status
 * and no generation, create on update and unconditional updates allowed, path-segment names, and a roleRef that
 * never changes ("cannot change roleRef"). Tables are kube's printer's: Name, Role, Age; -o wide adds Users, Groups
 * and ServiceAccounts.
 */
export const RoleBindingResource: ResourceDefinition<RoleBinding> = defineResource({
  group: RBAC_GROUP,
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
  versions: [{ name: 'v1', schema: bindingSchema(ROLE_REF_DOC) }],
  printerColumns: bindingColumns('roleBinding', ROLE_REF_DOC),
  validateName: validateRBACName,
  strategy: {
    prepareForCreate: (_ctx, b) => defaultBinding(b),
    prepareForUpdate: (_ctx, b) => defaultBinding(b),
    validate: (_ctx, b) => validateRoleBinding(b as RoleBinding),
    // As kube's strategy: ValidateRoleBinding, then ValidateRoleBindingUpdate, which repeats it.
    validateUpdate: (_ctx, b, old) => [
      ...validateRoleBinding(b as RoleBinding),
      ...validateRoleBindingUpdate(b as RoleBinding, old as RoleBinding),
    ],
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowCreateOnUpdate: () => true,
    allowUnconditionalUpdate: () => true,
  },
}) as unknown as ResourceDefinition<RoleBinding>;

import { copyJson, isNotFound, type KubeObject, newBadRequest, newForbidden, newNotFound } from '@kapi/apimachinery';
import type { Authorizer } from '../../authorizer.ts';
import { defaultBinding } from '../role-binding.ts';
import type { AuthorizationRuleResolver } from '../rule-resolver.ts';
import { type PolicyRule, RBAC_GROUP, type RoleRef } from '../types.ts';
import { confirmNoEscalation } from './confirm-no-escalation.ts';
import { bindingAuthorized, escalationAllowed, roleEscalationAuthorized } from './escalation-check.ts';
import { isOnlyMutatingGCFields } from './gc-fields.ts';
import type { WriteCheck, WriteCheckAttributes } from './write-check.ts';

export interface RBACWriteCheckOptions {
  /** The server's whole authorizer (all modes), asked about the `escalate` and `bind` verbs; read at each check. */
  authorizer: () => Authorizer;
  /**
   * Resolves the writer's own rules and the rules of a binding's role: `new RBACRuleResolver(cache, { notFound:
   * 'registry' })` words missing roles in resolution errors as kube's write path does (RBACAuthorizer's `ruleResolver`
   * words them as kube's authorizer does).
   */
  ruleResolver: AuthorizationRuleResolver;
}

/** What it takes to write an aggregationRule: everything (`*` on `*.*` and on every URL). */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/**
 * kube's privilege-escalation prevention for the four RBAC resources (pkg/registry/rbac/{role,clusterrole,rolebinding,
 * clusterrolebinding}/policybased):
 * - a Role or ClusterRole may be created or updated by a member of system:masters, by a user the authorizer allows to
 *   `escalate` it, or by a user whose own rules (in the Role's namespace; cluster-wide for a ClusterRole) cover all of
 *   its rules; setting or changing an aggregationRule needs rules covering everything;
 * - a RoleBinding or ClusterRoleBinding by a member of system:masters, by a user allowed to `bind` the referenced role,
 *   or by a user whose own rules cover the role's.
 * An update that changes only ownerReferences and finalizers passes. Refusals are kube's 403s, e.g.
 * `roles.rbac.authorization.k8s.io "x" is forbidden: user "bob" (groups=["dev"]) is attempting to grant RBAC
 * permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`.
 */
export function rbacWriteChecks(options: RBACWriteCheckOptions): WriteCheck[] {
  return [
    roleCheck(options, 'roles'),
    roleCheck(options, 'clusterroles'),
    bindingCheck(options, 'rolebindings'),
    bindingCheck(options, 'clusterrolebindings'),
  ];
}

const isWrite = (attrs: WriteCheckAttributes): boolean => attrs.operation === 'CREATE' || attrs.operation === 'UPDATE';

/** The update passes unchecked when it only changes what the garbage collector writes. */
const onlyGCFields = (attrs: WriteCheckAttributes): boolean =>
  attrs.operation === 'UPDATE' &&
  attrs.object !== null &&
  attrs.oldObject !== null &&
  isOnlyMutatingGCFields(attrs.object, attrs.oldObject);

type RBACResource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

/**
 * The check of one RBAC resource: creates and updates, except by a member of system:masters, go to `judge` with the
 * object written and the namespace whose rules count ('' for the cluster-scoped kinds).
 */
function rbacWriteCheck(
  resource: RBACResource,
  judge: (attrs: WriteCheckAttributes, obj: KubeObject, namespace: string) => Promise<void>,
): WriteCheck {
  const namespaced = resource === 'roles' || resource === 'rolebindings';
  return {
    resource: `${resource}.${RBAC_GROUP}`,
    async check(attrs) {
      const obj = attrs.object;
      if (!isWrite(attrs) || !obj || escalationAllowed(attrs.userInfo)) return;
      await judge(attrs, obj, namespaced ? attrs.namespace : '');
    },
  };
}

function roleCheck(options: RBACWriteCheckOptions, resource: 'roles' | 'clusterroles'): WriteCheck {
  const gr = { group: RBAC_GROUP, resource };
  return rbacWriteCheck(resource, async (attrs, obj, namespace) => {
    const user = attrs.userInfo;
    // kube asks with the request path's name: none on a create.
    const requestName = attrs.operation === 'CREATE' ? '' : attrs.name;
    if (await roleEscalationAuthorized(options.authorizer(), user, resource, attrs.namespace, requestName)) return;
    if (onlyGCFields(attrs)) return;
    const name = obj.metadata?.name ?? attrs.name;
    const refused = confirmNoEscalation(options.ruleResolver, user, namespace, policyRules(obj.rules));
    if (refused !== null) throw newForbidden(gr, name, refused);
    if (resource === 'clusterroles' && (hasAggregationRule(obj) || (attrs.operation === 'UPDATE' && hasAggregationRule(attrs.oldObject)))) {
      // It can gather any rules, and changing it can keep a role from being tightened.
      if (confirmNoEscalation(options.ruleResolver, user, '', FULL_AUTHORITY) !== null) {
        throw newForbidden(gr, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    }
  });
}

function bindingCheck(options: RBACWriteCheckOptions, resource: 'rolebindings' | 'clusterrolebindings'): WriteCheck {
  const gr = { group: RBAC_GROUP, resource };
  return rbacWriteCheck(resource, async (attrs, obj, namespace) => {
    const user = attrs.userInfo;
    if (resource === 'rolebindings' && namespace === '') throw newBadRequest('namespace is required');
    if (onlyGCFields(attrs)) return;
    const roleRef = roleRefOf(defaulted(obj).roleRef);
    // Not a reference to a Role or ClusterRole: validation refuses it (422), nothing is granted.
    if (!roleRef) return;
    if (await bindingAuthorized(options.authorizer(), user, roleRef, namespace)) return;
    let rules: readonly PolicyRule[];
    try {
      rules = options.ruleResolver.getRoleReferenceRules(roleRef, namespace);
    } catch (err) {
      // kube's write path reads the role through its registry: a missing one is that registry's 404.
      if (isNotFound(err)) {
        throw newNotFound({ group: RBAC_GROUP, resource: roleRef.kind === 'Role' ? 'roles' : 'clusterroles' }, roleRef.name);
      }
      throw err;
    }
    const refused = confirmNoEscalation(options.ruleResolver, user, namespace, rules);
    if (refused !== null) throw newForbidden(gr, obj.metadata?.name ?? attrs.name, refused);
  });
}

/**
 * The binding as rbac/v1's defaults leave it (roleRef's apiGroup): kube's check sees the object after its decoder has
 * defaulted it, this one runs before the kind's strategy does. On a copy: the Store defaults its own.
 */
function defaulted(obj: KubeObject): KubeObject & { roleRef?: unknown } {
  const copy = copyJson(obj);
  defaultBinding(copy);
  return copy;
}

function hasAggregationRule(obj: unknown): boolean {
  const rule = (obj as { aggregationRule?: { clusterRoleSelectors?: unknown } } | null)?.aggregationRule;
  return Array.isArray(rule?.clusterRoleSelectors) && rule.clusterRoleSelectors.length > 0;
}

function roleRefOf(value: unknown): RoleRef | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { apiGroup, kind, name } = value as Record<string, unknown>;
  if ((kind !== 'Role' && kind !== 'ClusterRole') || typeof name !== 'string') return undefined;
  return { apiGroup: typeof apiGroup === 'string' ? apiGroup : '', kind, name };
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);

/** The well-formed part of a written object's rules (it may not have been validated yet). */
function policyRules(value: unknown): PolicyRule[] {
  if (!Array.isArray(value)) return [];
  const rules: PolicyRule[] = [];
  for (const r of value) {
    if (typeof r !== 'object' || r === null) continue;
    const o = r as Record<string, unknown>;
    const rule: PolicyRule = { verbs: strings(o.verbs) ?? [] };
    const apiGroups = strings(o.apiGroups);
    const resources = strings(o.resources);
    const resourceNames = strings(o.resourceNames);
    const nonResourceURLs = strings(o.nonResourceURLs);
    if (apiGroups) rule.apiGroups = apiGroups;
    if (resources) rule.resources = resources;
    if (resourceNames) rule.resourceNames = resourceNames;
    if (nonResourceURLs) rule.nonResourceURLs = nonResourceURLs;
    rules.push(rule);
  }
  return rules;
}

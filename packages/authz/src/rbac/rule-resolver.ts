import { goQuote, newNotFound } from '@kapi/apimachinery';
import { aggregateErrors, type UserInfo } from '@kapi/authn';
import type { RBACPolicySource } from './policy-source.ts';
import { serviceAccountUsername } from './subject-index.ts';
import { type ClusterRoleBinding, type PolicyRule, RBAC_GROUP, type RoleBinding, type RoleRef, type Subject } from './types.ts';

/**
 * Where a rule came from, described lazily (kube's fmt.Stringer describers): e.g.
 * `ClusterRoleBinding "admins" of ClusterRole "cluster-admin" to Group "system:masters"`,
 * `RoleBinding "view/default" of ClusterRole "view" to ServiceAccount "builder/default"`.
 */
export class RuleSource {
  readonly binding: RoleBinding | ClusterRoleBinding;
  readonly subject: Subject;
  /** "" for a ClusterRoleBinding. */
  readonly namespace: string;

  constructor(binding: RoleBinding | ClusterRoleBinding, subject: Subject, namespace: string) {
    this.binding = binding;
    this.subject = subject;
    this.namespace = namespace;
  }

  toString(): string {
    const b = this.binding;
    const ref = `${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(this.subject, this.namespace)}`;
    if (this.namespace === '') return `ClusterRoleBinding ${goQuote(b.metadata.name ?? '')} of ${ref}`;
    return `RoleBinding ${goQuote(`${b.metadata.name ?? ''}/${b.metadata.namespace ?? ''}`)} of ${ref}`;
  }
}

/** kube's describeSubject: a service account as `name/namespace` (the binding's namespace when the subject has none). */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** Called with each rule (and its source) or each resolution error; returning false stops the visit. */
export type RuleVisitor = (source: RuleSource | null, rule: PolicyRule | null, err: Error | null) => boolean;

/** PolicyRules and the error (kube's aggregate) met while resolving them; the rules are all that could be resolved. */
export interface PolicyRulesResult {
  readonly rules: PolicyRule[];
  readonly error: Error | null;
}

/** kube's AuthorizationRuleResolver (pkg/registry/rbac/validation): what the escalation checks need. */
export interface AuthorizationRuleResolver {
  /**
   * The rules of the role a binding refers to; `namespace` is the binding's ("" for a ClusterRoleBinding).
   * Throws a 404 StatusError when the role is missing, an Error for a roleRef kind other than Role or ClusterRole.
   */
  getRoleReferenceRules(roleRef: RoleRef, namespace: string): readonly PolicyRule[];
  /** kube's RulesFor: every rule that applies to `user` in `namespace` ("" for cluster-wide only). */
  policyRulesFor(user: UserInfo, namespace: string): PolicyRulesResult;
  /** kube's VisitRulesFor: ClusterRoleBindings' rules first, then the namespace's RoleBindings'. */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void;
}

/** kube's appliesToUser: whether a binding's subject names the user. */
export function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // A subject without a namespace means the one being worked in (the RoleBinding's).
      const ns = subject.namespace || namespace;
      return ns !== '' && user.name === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

/** kube's appliesTo: the first of the binding's subjects that names the user. */
function firstApplying(user: UserInfo, subjects: readonly Subject[] | undefined, namespace: string): Subject | undefined {
  for (const s of subjects ?? []) if (appliesToUser(user, s, namespace)) return s;
  return undefined;
}

export interface RBACRuleResolverOptions {
  /**
   * How a missing role is named in errors: kube's authorizer reads roles through informer listers
   * (`clusterrole.rbac.authorization.k8s.io "x" not found`, the default), its escalation checks through the registry
   * (`clusterroles.rbac.authorization.k8s.io "x" not found`).
   */
  notFound?: 'lister' | 'registry';
}

/**
 * kube's DefaultRuleResolver over an RBACPolicySource. A missing role is a resolution error (a 404 StatusError),
 * reported and skipped: rules only add, so the others still count.
 */
export class RBACRuleResolver implements AuthorizationRuleResolver {
  readonly #source: RBACPolicySource;
  readonly #roleResource: string;
  readonly #clusterRoleResource: string;

  constructor(source: RBACPolicySource, options: RBACRuleResolverOptions = {}) {
    this.#source = source;
    const registry = options.notFound === 'registry';
    this.#roleResource = registry ? 'roles' : 'role';
    this.#clusterRoleResource = registry ? 'clusterroles' : 'clusterrole';
  }

  getRoleReferenceRules(roleRef: RoleRef, namespace: string): readonly PolicyRule[] {
    switch (roleRef.kind) {
      case 'Role': {
        const role = this.#source.getRole(namespace, roleRef.name);
        if (!role) throw newNotFound({ group: RBAC_GROUP, resource: this.#roleResource }, roleRef.name);
        return role.rules ?? [];
      }
      case 'ClusterRole': {
        const role = this.#source.getClusterRole(roleRef.name);
        if (!role) throw newNotFound({ group: RBAC_GROUP, resource: this.#clusterRoleResource }, roleRef.name);
        return role.rules ?? [];
      }
      default:
        throw new Error(`unsupported role reference kind: ${goQuote(roleRef.kind)}`);
    }
  }

  policyRulesFor(user: UserInfo, namespace: string): PolicyRulesResult {
    const rules: PolicyRule[] = [];
    const errors: Error[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, error: aggregateErrors(errors) };
  }

  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    for (const binding of this.#source.clusterRoleBindingsFor(user)) {
      if (!this.#visitBinding(user, binding, '', visitor)) return;
    }
    if (namespace === '') return;
    for (const binding of this.#source.roleBindingsFor(user, namespace)) {
      if (!this.#visitBinding(user, binding, namespace, visitor)) return;
    }
  }

  /** false when the visitor stopped the visit. */
  #visitBinding(user: UserInfo, binding: RoleBinding, namespace: string, visitor: RuleVisitor): boolean {
    const subject = firstApplying(user, binding.subjects, namespace);
    if (!subject) return true;
    let rules: readonly PolicyRule[];
    try {
      rules = this.getRoleReferenceRules(binding.roleRef, namespace);
    } catch (err) {
      return visitor(null, null, err instanceof Error ? err : new Error(String(err)));
    }
    if (rules.length === 0) return true;
    const source = new RuleSource(binding, subject, namespace);
    for (const rule of rules) if (!visitor(source, rule, null)) return false;
    return true;
  }
}

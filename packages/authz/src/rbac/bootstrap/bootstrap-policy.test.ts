import { describe, expect, it } from 'vitest';
import type { ClusterRole, PolicyRule, Role } from '../types.ts';
import { bootstrapPolicy } from './bootstrap-policy.ts';
import type { ServedResource } from './served-rules.ts';
// kube's plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/cluster-roles.yaml, cluster-role-bindings.yaml and
// namespace-roles.yaml (the objects this policy bootstraps, creationTimestamp: null and `rules: null` left out), as JSON.
import kubeBindings from './testdata/kube-cluster-role-bindings.json' with { type: 'json' };
import kubeRolesJson from './testdata/kube-cluster-roles.json' with { type: 'json' };
import kubeNamespaceRolesJson from './testdata/kube-namespace-roles.json' with { type: 'json' };

const kubeRoles = kubeRolesJson as unknown as ClusterRole[];
const kubeNamespaceRoles = kubeNamespaceRolesJson as unknown as Role[];

const byName = <T extends { metadata: { name?: string } }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));

/** Every (group, resource, subresource) kube's rules name: a server that serves all of them. */
function everythingNamed(): ServedResource[] {
  const served = new Map<string, ServedResource & { subresources: string[] }>();
  const { clusterRoles, roles } = bootstrapPolicy();
  for (const role of [...clusterRoles, ...roles]) {
    for (const rule of role.rules ?? []) {
      for (const group of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          if (group === '*' || resource.startsWith('*')) continue;
          const [main = '', sub] = resource.split('/');
          const key = `${group}/${main}`;
          const entry = served.get(key) ?? { group, resource: main, subresources: [] };
          if (sub) entry.subresources.push(sub);
          served.set(key, entry);
        }
      }
    }
  }
  return [...served.values()];
}

/** The example control plane's kinds. */
const EXAMPLE_SERVED: ServedResource[] = [
  { group: '', resource: 'namespaces', subresources: ['status', 'finalize'] },
  { group: '', resource: 'configmaps' },
  { group: '', resource: 'secrets' },
  { group: '', resource: 'events' },
  { group: '', resource: 'serviceaccounts', subresources: ['token'] },
  { group: 'rbac.authorization.k8s.io', resource: 'roles' },
  { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews' },
  { group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'localsubjectaccessreviews' },
  { group: 'authentication.k8s.io', resource: 'selfsubjectreviews' },
  { group: 'authentication.k8s.io', resource: 'tokenreviews' },
  { group: 'example.kapi.dev', resource: 'widgets', subresources: ['status', 'scale'] },
];

function rulesOf(roles: readonly ClusterRole[], name: string): PolicyRule[] | undefined {
  return roles.find((r) => r.metadata.name === name)?.rules;
}

// policy.go's order of the roles, which bootstrapPolicy keeps
const KUBE_ORDER = [
  'cluster-admin',
  'system:discovery',
  'system:monitoring',
  'system:basic-user',
  'system:public-info-viewer',
  'admin',
  'edit',
  'view',
  'system:aggregate-to-admin',
  'system:aggregate-to-edit',
  'system:aggregate-to-view',
  'system:auth-delegator',
];

describe('bootstrapPolicy', () => {
  it('is kube-apiserver’s cluster roles and bindings when nothing restricts it', () => {
    const policy = bootstrapPolicy();
    expect(byName(policy.clusterRoles)).toEqual(byName(kubeRoles));
    expect(byName(policy.clusterRoleBindings)).toEqual(byName(kubeBindings));
    expect(byName(policy.roles)).toEqual(byName(kubeNamespaceRoles));
    expect(policy.roleBindings).toEqual([]);
  });

  it('is kube’s, unchanged, on a server that serves every kind kube’s rules name', () => {
    const policy = bootstrapPolicy({ served: everythingNamed() });
    expect(byName(policy.clusterRoles)).toEqual(byName(kubeRoles));
    expect(byName(policy.clusterRoleBindings)).toEqual(byName(kubeBindings));
    expect(byName(policy.roles)).toEqual(byName(kubeNamespaceRoles));
  });

  it('keeps only the example’s kinds, wildcards and non-resource rules', () => {
    const { clusterRoles, clusterRoleBindings, roles } = bootstrapPolicy({ served: EXAMPLE_SERVED });
    expect(clusterRoles.map((r) => r.metadata.name)).toEqual(KUBE_ORDER);
    expect(rulesOf(clusterRoles, 'cluster-admin')).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
    expect(rulesOf(clusterRoles, 'system:aggregate-to-admin')).toEqual(rulesOf(kubeRoles, 'system:aggregate-to-admin'));
    expect(rulesOf(clusterRoles, 'system:aggregate-to-edit')).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['secrets'] },
      { verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'] },
      {
        verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'],
        apiGroups: [''],
        resources: ['configmaps', 'events', 'secrets', 'serviceaccounts'],
      },
      { verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] },
    ]);
    expect(rulesOf(clusterRoles, 'system:aggregate-to-view')).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'serviceaccounts'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['events', 'namespaces/status'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] },
    ]);
    expect(rulesOf(clusterRoles, 'system:basic-user')).toEqual(rulesOf(kubeRoles, 'system:basic-user'));
    for (const name of ['system:discovery', 'system:public-info-viewer', 'system:monitoring', 'system:auth-delegator']) {
      expect(rulesOf(clusterRoles, name)).toEqual(rulesOf(kubeRoles, name));
    }
    // the aggregated roles are untouched: their rules come from the aggregate-to-* roles
    for (const name of ['admin', 'edit', 'view']) {
      const role = clusterRoles.find((r) => r.metadata.name === name);
      expect(role?.rules).toBeUndefined();
      expect(role?.aggregationRule?.clusterRoleSelectors).toHaveLength(1);
    }
    expect(byName(clusterRoleBindings)).toEqual(byName(kubeBindings));
    // the example serves configmaps: kube-system's reader role is kube's as it is
    expect(roles).toEqual(kubeNamespaceRoles);
  });

  it('returns fresh objects on every call', () => {
    const a = bootstrapPolicy();
    a.clusterRoles[0]?.rules?.push({ verbs: ['get'], nonResourceURLs: ['/x'] });
    expect(bootstrapPolicy().clusterRoles[0]?.rules).toHaveLength(2);
  });
});

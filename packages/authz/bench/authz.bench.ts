/**
 * authorize() calls per second of the RBAC authorizer over a policy of 1,000 roles and 1,000 bindings, next to
 * AlwaysAllow (the cost of deciding nothing) measured in the same run. The policy: 500 ClusterRoles and 500 Roles
 * (in 50 namespaces), 500 ClusterRoleBindings and 500 RoleBindings to users and groups, plus system:authenticated
 * bound to three discovery-style ClusterRoles as kube's bootstrap policy does. 2,000 users, each in three groups and
 * system:authenticated; requests are a seeded mix of allowed resource requests, misses (nothing allows them) and
 * non-resource requests. A second table sets the subject index against the same bindings unindexed (every
 * ClusterRoleBinding and the namespace's RoleBindings per call, as kube's listers hand them to its rule resolver).
 * Figures are ops/s (best of alternating rounds); ratio = RBAC / AlwaysAllow, and indexed / unindexed.
 * Run: `npm run bench` in packages/authz.
 */
import type { UserInfo } from '@kapi/authn';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { seededRandom } from '../../../scripts/seeded-random.ts';
import { AlwaysAllowAuthorizer } from '../src/always-allow.ts';
import type { AuthorizationAttributes, Authorizer } from '../src/authorizer.ts';
import type { RBACPolicySource } from '../src/rbac/policy-source.ts';
import { RBACAuthorizer } from '../src/rbac/rbac-authorizer.ts';
import { RBACCache } from '../src/rbac/rbac-cache.ts';
import type { PolicyRule, RoleBinding, Subject } from '../src/rbac/types.ts';

const ROUNDS = 7;
const CALLS = 200_000;
const G = 'rbac.authorization.k8s.io';
const V = `${G}/v1`;
const NAMESPACES = 50;
const USERS = 2_000;
const GROUPS = 200;
const RESOURCES = ['pods', 'services', 'configmaps', 'secrets', 'deployments', 'jobs', 'widgets', 'gizmos'];
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

const random = seededRandom(12);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
const rulesFor = (i: number): PolicyRule[] => [
  {
    verbs: [VERBS[i % VERBS.length] as string, 'get'],
    apiGroups: ['', 'apps'],
    resources: [RESOURCES[i % RESOURCES.length] as string, `${RESOURCES[i % RESOURCES.length]}/status`],
  },
  { verbs: ['get', 'list'], apiGroups: ['example.kapi.dev'], resources: [`kind${i}`], resourceNames: [`n${i}`] },
];
const subjectsFor = (i: number): Subject[] => [
  { kind: 'User', apiGroup: G, name: `user${(i * 7) % USERS}` },
  { kind: 'Group', apiGroup: G, name: `group${i % GROUPS}` },
];

const cache = new RBACCache();
for (let i = 0; i < 500; i++) {
  cache.clusterRoles.apply('ADDED', { apiVersion: V, kind: 'ClusterRole', metadata: { name: `cr${i}` }, rules: rulesFor(i) });
  cache.roles.apply('ADDED', {
    apiVersion: V,
    kind: 'Role',
    metadata: { name: `r${i}`, namespace: `ns${i % NAMESPACES}` },
    rules: rulesFor(i + 500),
  });
  cache.clusterRoleBindings.apply('ADDED', {
    apiVersion: V,
    kind: 'ClusterRoleBinding',
    metadata: { name: `crb${i}` },
    subjects: subjectsFor(i),
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: `cr${i}` },
  });
  cache.roleBindings.apply('ADDED', {
    apiVersion: V,
    kind: 'RoleBinding',
    metadata: { name: `rb${i}`, namespace: `ns${i % NAMESPACES}` },
    subjects: subjectsFor(i + 500),
    // Half the RoleBindings use a ClusterRole in a namespace, as `view`/`edit` bindings do.
    roleRef: i % 2 === 0 ? { apiGroup: G, kind: 'Role', name: `r${i}` } : { apiGroup: G, kind: 'ClusterRole', name: `cr${i}` },
  });
}
for (const name of ['system:basic-user', 'system:discovery', 'system:public-info-viewer']) {
  cache.clusterRoles.apply('ADDED', {
    apiVersion: V,
    kind: 'ClusterRole',
    metadata: { name },
    rules: [
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/', '/api', '/api/*', '/apis', '/apis/*'] },
    ],
  });
  cache.clusterRoleBindings.apply('ADDED', {
    apiVersion: V,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    subjects: [{ kind: 'Group', apiGroup: G, name: 'system:authenticated' }],
    roleRef: { apiGroup: G, kind: 'ClusterRole', name },
  });
}
for (const kind of [cache.roles, cache.clusterRoles, cache.roleBindings, cache.clusterRoleBindings]) kind.listed();

const users: UserInfo[] = Array.from({ length: USERS }, (_, i) => ({
  name: `user${i}`,
  groups: [`group${i % GROUPS}`, `group${(i * 3) % GROUPS}`, `group${(i * 11) % GROUPS}`, 'system:authenticated'],
}));

function request(): AuthorizationAttributes {
  const user = pick(users);
  const base = { user, apiVersion: 'v1', subresource: '', path: '' };
  const r = random();
  if (r < 0.15)
    return {
      ...base,
      verb: 'get',
      resourceRequest: false,
      namespace: '',
      apiGroup: '',
      resource: '',
      name: '',
      path: pick(['/healthz', '/apis/apps/v1', '/metrics']),
    };
  return {
    ...base,
    verb: pick(VERBS),
    resourceRequest: true,
    namespace: random() < 0.2 ? '' : `ns${Math.floor(random() * NAMESPACES)}`,
    apiGroup: pick(['', 'apps', 'batch']),
    resource: pick(RESOURCES),
    subresource: random() < 0.1 ? 'status' : '',
    name: random() < 0.5 ? '' : `n${Math.floor(random() * 1000)}`,
  };
}
const requests = Array.from({ length: 10_000 }, request);

const rbac = new RBACAuthorizer(cache);
const allowed = (await Promise.all(requests.map((r) => rbac.authorize(r)))).filter((d) => d.decision === 'Allow').length;

function calls(authorizer: Authorizer, n = CALLS): () => Promise<number> {
  return () =>
    timeOps(n, async () => {
      for (let i = 0; i < n; i++) await authorizer.authorize(requests[i % requests.length] as AuthorizationAttributes);
    });
}

/** The same policy read as kube's listers give it: every ClusterRoleBinding, every RoleBinding of the namespace. */
const everyCRB = [...new Set(users.flatMap((u) => cache.clusterRoleBindingsFor(u)))];
const everyRB = new Map<string, RoleBinding[]>();
for (let n = 0; n < NAMESPACES; n++) everyRB.set(`ns${n}`, [...new Set(users.flatMap((u) => cache.roleBindingsFor(u, `ns${n}`)))]);
const unindexed: RBACPolicySource = {
  getRole: (ns, name) => cache.getRole(ns, name),
  getClusterRole: (name) => cache.getClusterRole(name),
  clusterRoleBindingsFor: () => everyCRB,
  roleBindingsFor: (_u, ns) => everyRB.get(ns) ?? [],
};

const rows: BenchRow[] = [
  ['authorize(), 1,000 roles and 1,000 bindings', ...(await bestOfAlternating(ROUNDS, calls(rbac), calls(new AlwaysAllowAuthorizer())))],
];
const indexRows: BenchRow[] = [
  [
    'authorize(), same policy and requests',
    ...(await bestOfAlternating(ROUNDS, calls(rbac), calls(new RBACAuthorizer(unindexed), CALLS / 20))),
  ],
];
printTable({
  title: 'RBAC authorizer: authorize() calls per second (kapi = RBACAuthorizer, reference = AlwaysAllowAuthorizer)',
  notes: [
    `policy: ${cache.clusterRoles.size} ClusterRoles, ${cache.roles.size} Roles, ${cache.clusterRoleBindings.size} ClusterRoleBindings, ${cache.roleBindings.size} RoleBindings; ${USERS} users in 4 groups each`,
    `requests: ${requests.length} distinct, ${((allowed / requests.length) * 100).toFixed(0)}% allowed; ${CALLS.toLocaleString('en-US')} calls per round, best of ${ROUNDS}`,
  ],
  referenceName: 'AlwaysAllow',
  rows,
});
printTable({
  title: 'RBAC authorizer: the subject index (kapi = RBACCache, reference = the same bindings unindexed, as kube lists them)',
  notes: [`unindexed: ${everyCRB.length} ClusterRoleBindings and the namespace RoleBindings looked at per call`],
  referenceName: 'unindexed',
  rows: indexRows,
});

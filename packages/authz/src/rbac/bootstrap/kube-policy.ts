import { type ClusterRole, type ClusterRoleBinding, type PolicyRule, RBAC_GROUP, type Role, type RoleBinding } from '../types.ts';

/** rbacv1.AutoUpdateAnnotationKey: "false" on an object keeps bootstrap reconciliation away from it. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
/** The label every bootstrap object carries (bootstrappolicy.Label). */
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';

/** What kube-apiserver reconciles at start: cluster-scoped roles and bindings, and namespaced ones (namespace set). */
export interface BootstrapPolicy {
  clusterRoles: ClusterRole[];
  clusterRoleBindings: ClusterRoleBinding[];
  roles: Role[];
  roleBindings: RoleBinding[];
}

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];

const NAMESPACE_SYSTEM = 'kube-system';

const LEGACY = '';
const APPS = 'apps';
const AUTHENTICATION = 'authentication.k8s.io';
const AUTHORIZATION = 'authorization.k8s.io';
const AUTOSCALING = 'autoscaling';
const BATCH = 'batch';
const COORDINATION = 'coordination.k8s.io';
const DISCOVERY = 'discovery.k8s.io';
const EXTENSIONS = 'extensions';
const NETWORKING = 'networking.k8s.io';
const POLICY = 'policy';

const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

/** Sorted and deduplicated, as kube's rule builder (a string set's List()) leaves every list of a rule. */
const set = (values: readonly string[]): string[] => [...new Set(values)].sort();

/** rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).RuleOrDie(). */
function resourceRule(verbs: readonly string[], groups: readonly string[], resources: readonly string[]): PolicyRule {
  return { verbs: set(verbs), apiGroups: set(groups), resources: set(resources) };
}

/** rbacv1helpers.NewRule(verbs...).URLs(...).RuleOrDie(). */
function urlRule(verbs: readonly string[], urls: readonly string[]): PolicyRule {
  return { verbs: set(verbs), nonResourceURLs: set(urls) };
}

/** rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).Names(...).RuleOrDie(). */
function namedResourceRule(
  verbs: readonly string[],
  groups: readonly string[],
  resources: readonly string[],
  names: readonly string[],
): PolicyRule {
  return { ...resourceRule(verbs, groups, resources), resourceNames: set(names) };
}

/** A bootstrap object's metadata (addDefaultMetadata): kube's label and the autoupdate annotation. */
function bootstrapMetadata(name: string, labels: Record<string, string> = {}, namespace?: string): Role['metadata'] {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...labels, [BOOTSTRAPPING_LABEL]: 'rbac-defaults' },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function clusterRole(
  name: string,
  rules: PolicyRule[] | null,
  extra: { labels?: Record<string, string>; aggregateFrom?: string } = {},
): ClusterRole {
  const role: ClusterRole = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: bootstrapMetadata(name, extra.labels),
  };
  if (rules) role.rules = rules;
  if (extra.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [extra.aggregateFrom]: 'true' } }] };
  return role;
}

/** rbacv1helpers.NewClusterBinding(name).Groups(groups...).BindingOrDie(): the binding is named after its ClusterRole. */
/** addNamespaceRole(namespace, role): a Role bootstrapped into one of the reserved kube-* namespaces. */
function namespacedRole(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: bootstrapMetadata(name, {}, namespace), rules };
}

function clusterBindingToGroups(name: string, groups: readonly string[]): ClusterRoleBinding {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMetadata(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects: groups.map((group) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name: group })),
  };
}

/**
 * kube-apiserver's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go and
 * namespace_policy.go), the part a control plane without nodes, controllers or a scheduler needs: the user-facing
 * roles, the discovery, health and self-review roles with their bindings, and what aggregated API servers are bound
 * to for delegated authentication and authorization (system:auth-delegator, kube-system's
 * extension-apiserver-authentication-reader). The rules are kube's, in kube's order; every call returns fresh objects.
 */
export function kubeBootstrapPolicy(): BootstrapPolicy {
  const clusterRoles: ClusterRole[] = [
    // a "root" role which can do absolutely anything
    clusterRole('cluster-admin', [resourceRule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])]),
    // just enough to tell whether the server is ready and to discover API versions for negotiation
    clusterRole('system:discovery', [
      urlRule(
        ['get'],
        ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'],
      ),
    ]),
    // the monitoring endpoints; the splatted health checks name individual checks, which may say more about the cluster
    clusterRole('system:monitoring', [
      urlRule(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*']),
    ]),
    // enough for a "normal" user to learn about themselves
    clusterRole('system:basic-user', [
      resourceRule(['create'], [AUTHORIZATION], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      resourceRule(['create'], [AUTHENTICATION], ['selfsubjectreviews']),
    ]),
    // insensitive cluster information
    clusterRole('system:public-info-viewer', [urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    // namespace admin: edit plus granting permissions to others (rules filled by aggregation)
    clusterRole('admin', null, { aggregateFrom: AGGREGATE_TO_ADMIN }),
    // namespace editor: every user-level action, not the system's /status subresources, quota or limits
    clusterRole('edit', null, { labels: { [AGGREGATE_TO_ADMIN]: 'true' }, aggregateFrom: AGGREGATE_TO_EDIT }),
    // namespace viewer: read-only access to resources that do not escalate
    clusterRole('view', null, { labels: { [AGGREGATE_TO_EDIT]: 'true' }, aggregateFrom: AGGREGATE_TO_VIEW }),
    clusterRole(
      'system:aggregate-to-admin',
      [
        resourceRule(['create'], [AUTHORIZATION], ['localsubjectaccessreviews']),
        resourceRule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings']),
      ],
      { labels: { [AGGREGATE_TO_ADMIN]: 'true' } },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        // read on escalating resources
        resourceRule(READ, [LEGACY], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        resourceRule(['impersonate'], [LEGACY], ['serviceaccounts']),
        resourceRule(WRITE, [LEGACY], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        resourceRule(['create'], [LEGACY], ['pods/eviction']),
        resourceRule(
          WRITE,
          [LEGACY],
          [
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'serviceaccounts',
            'services',
            'services/proxy',
            'persistentvolumeclaims',
            'configmaps',
            'secrets',
            'events',
          ],
        ),
        resourceRule(['create'], [LEGACY], ['serviceaccounts/token']),
        resourceRule(
          WRITE,
          [APPS],
          [
            'statefulsets',
            'statefulsets/scale',
            'daemonsets',
            'deployments',
            'deployments/scale',
            'deployments/rollback',
            'replicasets',
            'replicasets/scale',
          ],
        ),
        resourceRule(WRITE, [AUTOSCALING], ['horizontalpodautoscalers']),
        resourceRule(WRITE, [BATCH], ['jobs', 'cronjobs']),
        resourceRule(
          WRITE,
          [EXTENSIONS],
          [
            'daemonsets',
            'deployments',
            'deployments/scale',
            'deployments/rollback',
            'ingresses',
            'replicasets',
            'replicasets/scale',
            'replicationcontrollers/scale',
            'networkpolicies',
          ],
        ),
        resourceRule(WRITE, [POLICY], ['poddisruptionbudgets']),
        resourceRule(WRITE, [NETWORKING], ['networkpolicies', 'ingresses']),
        resourceRule(READ_WRITE, [COORDINATION], ['leases']),
      ],
      { labels: { [AGGREGATE_TO_EDIT]: 'true' } },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        resourceRule(
          READ,
          [LEGACY],
          [
            'pods',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'serviceaccounts',
            'services',
            'services/status',
            'endpoints',
            'persistentvolumeclaims',
            'persistentvolumeclaims/status',
            'configmaps',
          ],
        ),
        resourceRule(
          READ,
          [LEGACY],
          [
            'limitranges',
            'resourcequotas',
            'bindings',
            'events',
            'pods/status',
            'resourcequotas/status',
            'namespaces/status',
            'replicationcontrollers/status',
            'pods/log',
          ],
        ),
        // reading namespaces at namespace scope reads *this* namespace: a sign of which namespaces one may use
        resourceRule(READ, [LEGACY], ['namespaces']),
        resourceRule(READ, [DISCOVERY], ['endpointslices']),
        resourceRule(
          READ,
          [APPS],
          [
            'controllerrevisions',
            'statefulsets',
            'statefulsets/status',
            'statefulsets/scale',
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/status',
            'deployments/scale',
            'replicasets',
            'replicasets/status',
            'replicasets/scale',
          ],
        ),
        resourceRule(READ, [AUTOSCALING], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        resourceRule(READ, [BATCH], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        resourceRule(
          READ,
          [EXTENSIONS],
          [
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'ingresses',
            'ingresses/status',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'replicationcontrollers/scale',
            'networkpolicies',
          ],
        ),
        resourceRule(READ, [POLICY], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        resourceRule(READ, [NETWORKING], ['ingresses', 'ingresses/status', 'networkpolicies']),
      ],
      { labels: { [AGGREGATE_TO_VIEW]: 'true' } },
    ),
    // authentication and authorization delegation (an aggregated API server's TokenReviews and SubjectAccessReviews);
    // these creates are non-mutating
    clusterRole('system:auth-delegator', [
      resourceRule(['create'], [AUTHENTICATION], ['tokenreviews']),
      resourceRule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
    ]),
  ];

  const clusterRoleBindings: ClusterRoleBinding[] = [
    clusterBindingToGroups('cluster-admin', ['system:masters']),
    clusterBindingToGroups('system:monitoring', ['system:monitoring']),
    clusterBindingToGroups('system:discovery', ['system:authenticated']),
    clusterBindingToGroups('system:basic-user', ['system:authenticated']),
    clusterBindingToGroups('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  ];

  // namespace_policy.go: finding the authentication configuration a delegating server starts from (the ConfigMap the
  // control plane publishes); kube's other kube-system roles are for controllers and a scheduler kapi does not run
  const roles: Role[] = [
    namespacedRole(NAMESPACE_SYSTEM, 'extension-apiserver-authentication-reader', [
      namedResourceRule(READ, [LEGACY], ['configmaps'], ['extension-apiserver-authentication']),
    ]),
  ];

  return { clusterRoles, clusterRoleBindings, roles, roleBindings: [] };
}

import type { KubeObject } from '@kapi/apimachinery';
import { Namespace, NamespaceLifecycle, type RequestContext, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClusterRoleResource } from '../cluster-role.ts';
import { ClusterRoleAggregationController } from '../cluster-role-aggregation-controller.ts';
import { ClusterRoleBindingResource } from '../cluster-role-binding.ts';
import { covers } from '../escalation/covers.ts';
import { RoleResource } from '../role.ts';
import { RoleBindingResource } from '../role-binding.ts';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../types.ts';
import { bootstrapPolicy } from './bootstrap-policy.ts';
import { AUTOUPDATE_ANNOTATION, type BootstrapPolicy, kubeBootstrapPolicy } from './kube-policy.ts';
import type { RbacObjectStore } from './rbac-object-store.ts';
import { reconcileBootstrapPolicy } from './reconcile-bootstrap-policy.ts';

const CLUSTER: RequestContext = {};
const noWait = async () => {};

const storages: MemoryStorage[] = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

/** Real registry Stores of the four RBAC kinds over one MemoryStorage (passing them as RbacStores checks that a Store fits). */
function rbacStores() {
  const storage = new MemoryStorage();
  storages.push(storage);
  return {
    storage,
    clusterRoles: new Store<ClusterRole>(ClusterRoleResource, { storage }),
    clusterRoleBindings: new Store<ClusterRoleBinding>(ClusterRoleBindingResource, { storage }),
    roles: new Store<Role>(RoleResource, { storage }),
    roleBindings: new Store<RoleBinding>(RoleBindingResource, { storage }),
  };
}

const names = (items: readonly KubeObject[]) =>
  items.map(
    (i) => `${i.kind?.toLowerCase()}.rbac.authorization.k8s.io/${i.metadata.namespace ? `${i.metadata.namespace}/` : ''}${i.metadata.name}`,
  );
const kubeRulesOf = (name: string): PolicyRule[] => kubeBootstrapPolicy().clusterRoles.find((r) => r.metadata.name === name)?.rules ?? [];

describe('reconcileBootstrapPolicy', () => {
  it('creates every object of the policy on a first run, as the policy has it', async () => {
    const stores = rbacStores();
    const policy = bootstrapPolicy();
    const result = await reconcileBootstrapPolicy(stores, policy);
    expect(result).toEqual({
      created: [...names(policy.clusterRoles), ...names(policy.clusterRoleBindings), ...names(policy.roles)],
      updated: [],
      recreated: [],
      skipped: [],
      failed: [],
    });
    const view = await stores.clusterRoles.get(CLUSTER, 'view');
    expect(view.aggregationRule).toEqual({
      clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }],
    });
    expect(view.metadata.labels).toEqual({
      'kubernetes.io/bootstrapping': 'rbac-defaults',
      'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
    });
    expect((await stores.clusterRoles.get(CLUSTER, 'system:aggregate-to-edit')).rules).toEqual(kubeRulesOf('system:aggregate-to-edit'));
    const publicInfo = await stores.clusterRoleBindings.get(CLUSTER, 'system:public-info-viewer');
    expect(publicInfo.subjects?.map((s) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
    expect(publicInfo.metadata.annotations).toEqual({ [AUTOUPDATE_ANNOTATION]: 'true' });
  });

  it('writes nothing on a second run', async () => {
    const stores = rbacStores();
    const policy = bootstrapPolicy();
    await reconcileBootstrapPolicy(stores, policy);
    const revision = await stores.storage.currentResourceVersion();
    expect(await reconcileBootstrapPolicy(stores, bootstrapPolicy())).toEqual({
      created: [],
      updated: [],
      recreated: [],
      skipped: [],
      failed: [],
    });
    expect(await stores.storage.currentResourceVersion()).toBe(revision);
  });

  it('writes nothing once the aggregation controller has filled admin, edit and view', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const controller = new ClusterRoleAggregationController({ clusterRoles: stores.clusterRoles });
    controller.start();
    try {
      const kube = (...names: string[]) => names.flatMap(kubeRulesOf);
      const holds = async (name: string, rules: PolicyRule[]) => {
        const role = await stores.clusterRoles.get(CLUSTER, name);
        expect(covers(role.rules ?? [], rules).covered).toBe(true);
      };
      await vi.waitFor(() => holds('admin', kube('system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view')), {
        timeout: 10_000,
        interval: 10,
      });
      await holds('edit', kube('system:aggregate-to-edit', 'system:aggregate-to-view'));
      await holds('view', kube('system:aggregate-to-view'));
      // (the controller's own writes may still land: what is checked is that reconciliation has nothing to write)
      const again = await reconcileBootstrapPolicy(stores, bootstrapPolicy());
      expect([...again.created, ...again.updated, ...again.recreated, ...again.skipped, ...again.failed]).toEqual([]);
    } finally {
      controller.stop();
    }
  });

  it('keeps a rule a user added to edit, and the aggregation controller’s rules of an aggregated role', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const mine: PolicyRule = { verbs: ['get'], apiGroups: ['example.kapi.dev'], resources: ['widgets'] };
    const edit = structuredClone(await stores.clusterRoles.get(CLUSTER, 'edit'));
    await stores.clusterRoles.update(CLUSTER, 'edit', { ...edit, rules: [...(edit.rules ?? []), mine] });
    const result = await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    expect(result.updated).toEqual([]);
    expect((await stores.clusterRoles.get(CLUSTER, 'edit')).rules).toEqual([mine]);
  });

  it('adds back a bootstrap rule a user removed, keeping the user’s own rules and labels', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const role = structuredClone(await stores.clusterRoles.get(CLUSTER, 'system:aggregate-to-view'));
    const mine: PolicyRule = { verbs: ['list'], apiGroups: ['example.kapi.dev'], resources: ['widgets'] };
    const kept = (role.rules ?? []).filter((r) => !r.resources?.includes('namespaces'));
    role.metadata.labels = { ...role.metadata.labels, 'kubernetes.io/bootstrapping': 'mine', team: 'a' };
    await stores.clusterRoles.update(CLUSTER, role.metadata.name ?? '', { ...role, rules: [...kept, mine] });

    const result = await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    expect(result.updated).toEqual(['clusterrole.rbac.authorization.k8s.io/system:aggregate-to-view']);
    const after = await stores.clusterRoles.get(CLUSTER, 'system:aggregate-to-view');
    expect(after.rules).toEqual([
      ...kept,
      mine,
      ...['get', 'list', 'watch'].map((verb) => ({ verbs: [verb], apiGroups: [''], resources: ['namespaces'] })),
    ]);
    expect(covers(after.rules ?? [], kubeRulesOf('system:aggregate-to-view')).covered).toBe(true);
    expect(after.metadata.labels).toEqual({
      'kubernetes.io/bootstrapping': 'mine',
      team: 'a',
      'rbac.authorization.k8s.io/aggregate-to-view': 'true',
    });
    expect((await reconcileBootstrapPolicy(stores, bootstrapPolicy())).updated).toEqual([]);
  });

  it('adds missing subjects, aggregation selectors and annotations, keeping the user’s', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const binding = structuredClone(await stores.clusterRoleBindings.get(CLUSTER, 'system:public-info-viewer'));
    const alice = { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' };
    await stores.clusterRoleBindings.update(CLUSTER, 'system:public-info-viewer', {
      ...binding,
      metadata: { ...binding.metadata, annotations: { note: 'mine' } },
      subjects: [alice, ...(binding.subjects ?? []).slice(1)],
    });
    const admin = structuredClone(await stores.clusterRoles.get(CLUSTER, 'admin'));
    const myAggregation = { matchLabels: { 'example.kapi.dev/aggregate-to-admin': 'true' } };
    await stores.clusterRoles.update(CLUSTER, 'admin', { ...admin, aggregationRule: { clusterRoleSelectors: [myAggregation] } });

    const result = await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    expect(result.updated).toEqual([
      'clusterrole.rbac.authorization.k8s.io/admin',
      'clusterrolebinding.rbac.authorization.k8s.io/system:public-info-viewer',
    ]);
    const after = await stores.clusterRoleBindings.get(CLUSTER, 'system:public-info-viewer');
    expect(after.subjects?.map((s) => s.name)).toEqual(['alice', 'system:unauthenticated', 'system:authenticated']);
    expect(after.metadata.annotations).toEqual({ note: 'mine', [AUTOUPDATE_ANNOTATION]: 'true' });
    expect((await stores.clusterRoles.get(CLUSTER, 'admin')).aggregationRule?.clusterRoleSelectors).toEqual([
      myAggregation,
      { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } },
    ]);
  });

  it('leaves alone an object annotated autoupdate "false"', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const role = structuredClone(await stores.clusterRoles.get(CLUSTER, 'system:basic-user'));
    role.metadata.annotations = { [AUTOUPDATE_ANNOTATION]: 'false' };
    role.metadata.labels = {};
    role.rules = [];
    const stored = (await stores.clusterRoles.update(CLUSTER, 'system:basic-user', role)).object;
    const binding = structuredClone(await stores.clusterRoleBindings.get(CLUSTER, 'system:discovery'));
    binding.metadata.annotations = { [AUTOUPDATE_ANNOTATION]: 'false' };
    binding.subjects = [];
    const storedBinding = (await stores.clusterRoleBindings.update(CLUSTER, 'system:discovery', binding)).object;

    const result = await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    expect(result.skipped).toEqual([
      'clusterrole.rbac.authorization.k8s.io/system:basic-user',
      'clusterrolebinding.rbac.authorization.k8s.io/system:discovery',
    ]);
    expect(result.updated).toEqual([]);
    expect(await stores.clusterRoles.get(CLUSTER, 'system:basic-user')).toEqual(stored);
    expect(await stores.clusterRoleBindings.get(CLUSTER, 'system:discovery')).toEqual(storedBinding);
  });

  it('deletes and recreates a binding whose roleRef changed', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const old = await stores.clusterRoleBindings.get(CLUSTER, 'system:basic-user');
    await stores.clusterRoleBindings.delete(CLUSTER, 'system:basic-user');
    await stores.clusterRoleBindings.create(CLUSTER, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:basic-user' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }],
    });

    const result = await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    expect(result.recreated).toEqual(['clusterrolebinding.rbac.authorization.k8s.io/system:basic-user']);
    const after = await stores.clusterRoleBindings.get(CLUSTER, 'system:basic-user');
    expect(after.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:basic-user' });
    expect(after.metadata.uid).not.toBe(old.metadata.uid);
    expect(after.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
  });

  it('deletes a binding to recreate only if it is the one it read (uid precondition), and looks again if not', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const wrong = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:discovery' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'first' }],
    };
    await stores.clusterRoleBindings.delete(CLUSTER, 'system:discovery');
    await stores.clusterRoleBindings.create(CLUSTER, wrong);

    // between reconciliation's read and its delete, another writer replaces the binding (a new uid)
    let replaced: KubeObject | undefined;
    const deletes: string[] = [];
    const racing: RbacObjectStore = {
      get: (ctx, name) => stores.clusterRoleBindings.get(ctx, name),
      create: (ctx, input) => stores.clusterRoleBindings.create(ctx, input),
      update: (ctx, name, input) => stores.clusterRoleBindings.update(ctx, name, input),
      delete: async (ctx, name, opts) => {
        if (!replaced) {
          await stores.clusterRoleBindings.delete(ctx, name);
          replaced = (await stores.clusterRoleBindings.create(ctx, { ...wrong, subjects: [] })).object;
        }
        try {
          return await stores.clusterRoleBindings.delete(ctx, name, opts);
        } finally {
          deletes.push(String(opts?.preconditions?.uid));
        }
      },
    };
    const result = await reconcileBootstrapPolicy({ ...stores, clusterRoleBindings: racing }, bootstrapPolicy());
    expect(result.failed).toEqual([]);
    expect(result.recreated).toEqual(['clusterrolebinding.rbac.authorization.k8s.io/system:discovery']);
    // the first delete named the binding read before, refused; the second the replacement
    expect(deletes).toHaveLength(2);
    expect(deletes[1]).toBe(replaced?.metadata.uid);
    expect(deletes[0]).not.toBe(replaced?.metadata.uid);
    expect((await stores.clusterRoleBindings.get(CLUSTER, 'system:discovery')).roleRef.name).toBe('system:discovery');
  });

  it('retries an update that lost a race with another writer, keeping that writer’s change', async () => {
    const stores = rbacStores();
    await reconcileBootstrapPolicy(stores, bootstrapPolicy());
    const role = structuredClone(await stores.clusterRoles.get(CLUSTER, 'system:aggregate-to-admin'));
    await stores.clusterRoles.update(CLUSTER, 'system:aggregate-to-admin', { ...role, rules: [] });

    // another writer labels the role between reconciliation's read and its write
    let raced = false;
    const racing: RbacObjectStore = {
      get: async (ctx, name) => {
        const obj = await stores.clusterRoles.get(ctx, name);
        if (name === 'system:aggregate-to-admin' && !raced) {
          raced = true;
          const copy = structuredClone(obj);
          copy.metadata.labels = { ...copy.metadata.labels, other: 'writer' };
          await stores.clusterRoles.update(ctx, name, copy);
        }
        return obj;
      },
      create: (ctx, input) => stores.clusterRoles.create(ctx, input),
      update: (ctx, name, input) => stores.clusterRoles.update(ctx, name, input),
      delete: (ctx, name, opts) => stores.clusterRoles.delete(ctx, name, opts),
    };
    const result = await reconcileBootstrapPolicy({ ...stores, clusterRoles: racing }, bootstrapPolicy(), { sleep: noWait });
    expect(raced).toBe(true);
    expect(result.failed).toEqual([]);
    expect(result.updated).toEqual(['clusterrole.rbac.authorization.k8s.io/system:aggregate-to-admin']);
    const after = await stores.clusterRoles.get(CLUSTER, 'system:aggregate-to-admin');
    expect(after.metadata.labels?.other).toBe('writer');
    // kube's two rules as kube adds them, broken down: 1 + 8 verbs × (roles, rolebindings)
    expect(after.rules).toHaveLength(17);
  });

  it('reconciles again a role created between its read and its create', async () => {
    const stores = rbacStores();
    let raced = false;
    const racing: RbacObjectStore = {
      get: async (ctx, name) => {
        if (name === 'view' && !raced) {
          raced = true;
          await stores.clusterRoles.create(ctx, {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: 'view' },
            rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
          });
          return stores.clusterRoles.get(ctx, 'no-such-role');
        }
        return stores.clusterRoles.get(ctx, name);
      },
      create: (ctx, input) => stores.clusterRoles.create(ctx, input),
      update: (ctx, name, input) => stores.clusterRoles.update(ctx, name, input),
      delete: (ctx, name, opts) => stores.clusterRoles.delete(ctx, name, opts),
    };
    const result = await reconcileBootstrapPolicy({ ...stores, clusterRoles: racing }, bootstrapPolicy());
    expect(raced).toBe(true);
    expect(result.failed).toEqual([]);
    expect(result.updated).toEqual(['clusterrole.rbac.authorization.k8s.io/view']);
    const view = await stores.clusterRoles.get(CLUSTER, 'view');
    expect(view.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
    expect(view.aggregationRule?.clusterRoleSelectors).toHaveLength(1);
  });

  it('reconciles namespaced roles and bindings through their stores, and goes on past an object it cannot write', async () => {
    const stores = rbacStores();
    const policy: BootstrapPolicy = {
      clusterRoles: [],
      clusterRoleBindings: [],
      roles: [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'bad name/', namespace: 'kube-system' },
          rules: [],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'system:leader', namespace: 'kube-system' },
          rules: [{ verbs: ['get'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] }],
        },
      ],
      roleBindings: [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'system:leader', namespace: 'kube-system' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'system:leader' },
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:kube-scheduler' }],
        },
      ],
    };
    const result = await reconcileBootstrapPolicy(stores, policy);
    expect(result.created).toEqual([
      'role.rbac.authorization.k8s.io/kube-system/system:leader',
      'rolebinding.rbac.authorization.k8s.io/kube-system/system:leader',
    ]);
    expect(result.failed.map((f) => f.name)).toEqual(['role.rbac.authorization.k8s.io/kube-system/bad name/']);
    expect((await stores.roles.get({ namespace: 'kube-system' }, 'system:leader')).rules).toHaveLength(1);
    expect((await stores.roleBindings.get({ namespace: 'kube-system' }, 'system:leader')).subjects).toHaveLength(1);
  });

  it('creates the example’s restricted policy, which a second run leaves alone', async () => {
    const stores = rbacStores();
    const served = [
      { group: '', resource: 'configmaps' },
      { group: '', resource: 'serviceaccounts', subresources: ['token'] },
      { group: 'rbac.authorization.k8s.io', resource: 'roles' },
      { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
    ];
    // kube's 12 cluster roles and 5 bindings, and kube-system's extension-apiserver-authentication-reader
    expect((await reconcileBootstrapPolicy(stores, bootstrapPolicy({ served }))).created).toHaveLength(18);
    expect((await stores.clusterRoles.get(CLUSTER, 'system:aggregate-to-view')).rules).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'serviceaccounts'] },
    ]);
    const again = await reconcileBootstrapPolicy(stores, bootstrapPolicy({ served }));
    expect([...again.created, ...again.updated, ...again.recreated, ...again.failed]).toEqual([]);
  });

  it('creates the namespace of a namespaced role that is missing it, as kube’s tryEnsureNamespace, and leaves an existing one alone', async () => {
    const { storage, clusterRoles, clusterRoleBindings } = rbacStores();
    const namespaces = new Store<Namespace>(Namespace, { storage });
    // namespace lifecycle admission, as a server has it: no role in a namespace that does not exist
    const { beforeCreate } = new NamespaceLifecycle(namespaces);
    const roles = new Store<Role>(RoleResource, { storage, beforeCreate });
    const roleBindings = new Store<RoleBinding>(RoleBindingResource, { storage, beforeCreate });
    const policy = bootstrapPolicy();
    const reader = 'role.rbac.authorization.k8s.io/kube-system/extension-apiserver-authentication-reader';

    // without the namespaces' store the role cannot be made: that is what ensuring the namespace is for
    const without = await reconcileBootstrapPolicy({ clusterRoles, clusterRoleBindings, roles, roleBindings }, policy);
    expect(without.failed.map((f) => f.name)).toEqual([reader]);

    const first = await reconcileBootstrapPolicy({ clusterRoles, clusterRoleBindings, roles, roleBindings, namespaces }, policy);
    expect(first.created).toEqual([reader]);
    expect(first.failed).toEqual([]);
    const kubeSystem = await namespaces.get(CLUSTER, 'kube-system');
    expect((await roles.get({ namespace: 'kube-system' }, 'extension-apiserver-authentication-reader')).rules).toEqual(
      policy.roles[0]?.rules,
    );

    // the role deleted, the next run creates it again in the namespace as it is
    await roles.delete({ namespace: 'kube-system' }, 'extension-apiserver-authentication-reader');
    const second = await reconcileBootstrapPolicy({ clusterRoles, clusterRoleBindings, roles, roleBindings, namespaces }, policy);
    expect(second.created).toEqual([reader]);
    expect((await namespaces.get(CLUSTER, 'kube-system')).metadata.resourceVersion).toBe(kubeSystem.metadata.resourceVersion);
  });
});

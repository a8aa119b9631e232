import { type KubeObject, StatusError } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, Authorizer } from '../../authorizer.ts';
import { RBACAuthorizer } from '../rbac-authorizer.ts';
import { RBACCache } from '../rbac-cache.ts';
import { RBACRuleResolver } from '../rule-resolver.ts';
import {
  addClusterRole,
  addClusterRoleBinding,
  addRole,
  addRoleBinding,
  clusterRoleRef,
  Group,
  roleRef,
  User,
} from '../test-support/rbac-policy.ts';
import { RBAC_GROUP as G, type PolicyRule, type RoleRef, type Subject } from '../types.ts';
import { rbacWriteChecks } from './rbac-write-checks.ts';
import type { WriteCheck, WriteCheckAttributes } from './write-check.ts';

const V = `${G}/v1`;

const bob: UserInfo = { name: 'bob', groups: ['g1', 'system:authenticated'] };
const podReader: PolicyRule[] = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }];

/** A policy: bob may read pods in "dev"; `extra` adds cluster roles and bindings. */
function setup(extra: (cache: RBACCache) => void = () => {}) {
  const cache = new RBACCache();
  addClusterRole(cache, 'pod-reader', podReader);
  addClusterRole(cache, 'cluster-admin', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]);
  addRole(cache, 'dev', 'pod-deleter', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]);
  addRoleBinding(cache, 'dev', 'bob-reads', [User('bob')], clusterRoleRef('pod-reader'));
  extra(cache);
  const rbac = new RBACAuthorizer(cache);
  const asked: AuthorizationAttributes[] = [];
  const authorizer: Authorizer = {
    authorize(attrs) {
      asked.push(attrs);
      return rbac.authorize(attrs);
    },
  };
  const checks = rbacWriteChecks({ authorizer: () => authorizer, ruleResolver: rbac.ruleResolver });
  const byResource = (r: string): WriteCheck => checks.find((c) => c.resource === `${r}.${G}`) as WriteCheck;
  return { cache, asked, byResource };
}

function write(over: Partial<WriteCheckAttributes> & { object: KubeObject | null }): WriteCheckAttributes {
  return {
    operation: 'CREATE',
    namespace: over.object?.metadata.namespace ?? '',
    name: over.object?.metadata.name ?? '',
    oldObject: null,
    userInfo: bob,
    dryRun: false,
    ...over,
  };
}
const role = (name: string, namespace: string, rules: PolicyRule[], extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: V,
  kind: namespace ? 'Role' : 'ClusterRole',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  rules,
  ...extra,
});
const binding = (name: string, namespace: string, ref: RoleRef, subjects: Subject[] = [User('carol')]): KubeObject => ({
  apiVersion: V,
  kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  subjects,
  roleRef: ref,
});

async function refusal(p: Promise<void>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

const HELD = 'is attempting to grant RBAC permissions not currently held:\n';

describe('rbacWriteChecks: Roles and ClusterRoles', () => {
  it('one check for each RBAC resource', () => {
    const { byResource } = setup();
    for (const r of ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']) expect(byResource(r)).toBeDefined();
  });

  it('passes a Role whose rules the writer holds in its namespace', async () => {
    const { byResource } = setup();
    await byResource('roles').check(write({ object: role('r', 'dev', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]) }));
  });

  it('refuses a Role granting more, with kube 403 text', async () => {
    const { byResource } = setup();
    const rules = [{ verbs: ['get', 'delete', 'watch'], apiGroups: [''], resources: ['pods', 'secrets'] }];
    const err = await refusal(byResource('roles').check(write({ object: role('x', 'dev', rules) })));
    expect(err.code).toBe(403);
    expect(err.status.reason).toBe('Forbidden');
    expect(err.status.details).toEqual({ name: 'x', group: G, kind: 'roles' });
    expect(err.message).toBe(
      `roles.rbac.authorization.k8s.io "x" is forbidden: user "bob" (groups=["g1" "system:authenticated"]) ${HELD}` +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "watch"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "watch"]}',
    );
  });

  it('a Role in another namespace is judged by the writer rules there', async () => {
    const { byResource } = setup();
    const err = await refusal(
      byResource('roles').check(write({ object: role('x', 'prod', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]) })),
    );
    expect(err.message).toBe(
      `roles.rbac.authorization.k8s.io "x" is forbidden: user "bob" (groups=["g1" "system:authenticated"]) ${HELD}{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`,
    );
  });

  it('a ClusterRole is judged by cluster-wide rules only', async () => {
    const { byResource, cache } = setup();
    const rules = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    const err = await refusal(byResource('clusterroles').check(write({ object: role('cr', '', rules) })));
    expect(err.message).toBe(
      `clusterroles.rbac.authorization.k8s.io "cr" is forbidden: user "bob" (groups=["g1" "system:authenticated"]) ${HELD}{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`,
    );
    addClusterRoleBinding(cache, 'bob-reads-everywhere', [Group('g1')], clusterRoleRef('pod-reader'));
    await byResource('clusterroles').check(write({ object: role('cr', '', rules) }));
  });

  it('members of system:masters may grant anything', async () => {
    const { byResource, asked } = setup();
    const root = { name: 'root', groups: ['system:masters'] };
    await byResource('roles').check(
      write({ object: role('x', 'dev', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), userInfo: root }),
    );
    await byResource('clusterroles').check(
      write({
        object: role('x', '', [{ verbs: ['*'], nonResourceURLs: ['*'] }], { aggregationRule: { clusterRoleSelectors: [{}] } }),
        userInfo: root,
      }),
    );
    expect(asked).toEqual([]);
  });

  it('the escalate verb on the role allows writing any rules; kube asks about the request name (none on create)', async () => {
    const { byResource, cache, asked } = setup((c) => {
      addClusterRole(c, 'escalator', [{ verbs: ['escalate'], apiGroups: [G], resources: ['roles'] }]);
    });
    const rules = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    await refusal(byResource('roles').check(write({ object: role('x', 'dev', rules) })));
    addRoleBinding(cache, 'dev', 'esc', [User('bob')], clusterRoleRef('escalator'));
    asked.length = 0;
    await byResource('roles').check(write({ object: role('x', 'dev', rules) }));
    expect(asked).toEqual([
      {
        user: bob,
        verb: 'escalate',
        resourceRequest: true,
        namespace: 'dev',
        apiGroup: G,
        apiVersion: '*',
        resource: 'roles',
        subresource: '',
        name: '',
        path: '',
      },
    ]);
    asked.length = 0;
    await byResource('roles').check(write({ operation: 'UPDATE', object: role('x', 'dev', rules), oldObject: role('x', 'dev', []) }));
    expect(asked[0]?.name).toBe('x');
    // Not in another namespace, and not for ClusterRoles.
    await refusal(byResource('roles').check(write({ object: role('x', 'prod', rules) })));
    await refusal(byResource('clusterroles').check(write({ object: role('x', '', rules) })));
  });

  it('escalate restricted by resourceNames covers updates of that role only (a create has no name)', async () => {
    const { byResource } = setup((c) => {
      addClusterRole(c, 'escalate-x', [{ verbs: ['escalate'], apiGroups: [G], resources: ['clusterroles'], resourceNames: ['x'] }]);
      addClusterRoleBinding(c, 'bob-esc', [User('bob')], clusterRoleRef('escalate-x'));
    });
    const rules = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    await refusal(byResource('clusterroles').check(write({ object: role('x', '', rules) })));
    await byResource('clusterroles').check(write({ operation: 'UPDATE', object: role('x', '', rules), oldObject: role('x', '', []) }));
    await refusal(
      byResource('clusterroles').check(write({ operation: 'UPDATE', object: role('y', '', rules), oldObject: role('y', '', []) })),
    );
  });

  it('an aggregationRule needs rules covering everything (kube message), set or removed', async () => {
    const { byResource, cache } = setup((c) => addClusterRoleBinding(c, 'bob-reads', [User('bob')], clusterRoleRef('pod-reader')));
    const aggregated = role('agg', '', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } });
    const err = await refusal(byResource('clusterroles').check(write({ object: aggregated })));
    expect(err.code).toBe(403);
    expect(err.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
    // Removing it is checked too.
    await refusal(byResource('clusterroles').check(write({ operation: 'UPDATE', object: role('agg', '', []), oldObject: aggregated })));
    // An empty selector list is no aggregation.
    await byResource('clusterroles').check(write({ object: role('agg', '', [], { aggregationRule: { clusterRoleSelectors: [] } }) }));
    addClusterRoleBinding(cache, 'bob-admin', [User('bob')], clusterRoleRef('cluster-admin'));
    await byResource('clusterroles').check(write({ object: aggregated }));
  });

  it('appends the writer own resolution errors', async () => {
    const { byResource } = setup((c) => addClusterRoleBinding(c, 'dangling', [Group('g1')], clusterRoleRef('gone')));
    const err = await refusal(
      byResource('roles').check(write({ object: role('x', 'dev', [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }]) })),
    );
    expect(err.message).toBe(
      `roles.rbac.authorization.k8s.io "x" is forbidden: user "bob" (groups=["g1" "system:authenticated"]) ${HELD}` +
        '{APIGroups:[""], Resources:["pods"], Verbs:["create"]}; resolution errors: [clusterrole.rbac.authorization.k8s.io "gone" not found]',
    );
  });

  it('with a registry-worded resolver, resolution errors read as kube write path words them', async () => {
    const cache = new RBACCache();
    addClusterRoleBinding(cache, 'dangling', [Group('g1')], clusterRoleRef('gone'));
    const resolver = new RBACRuleResolver(cache, { notFound: 'registry' });
    const [roles] = rbacWriteChecks({ authorizer: () => new RBACAuthorizer(cache), ruleResolver: resolver });
    const err = await refusal(roles?.check(write({ object: role('x', 'dev', podReader) })) as Promise<void>);
    expect(err.message).toBe(
      `roles.rbac.authorization.k8s.io "x" is forbidden: user "bob" (groups=["g1" "system:authenticated"]) ${HELD}` +
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "gone" not found]',
    );
  });

  it('quotes user and groups as Go %q does', async () => {
    const { byResource } = setup();
    const odd = { name: 'o"dd\tuser', groups: [] };
    const err = await refusal(
      byResource('roles').check(
        write({
          object: role('x', 'dev', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }]),
          userInfo: odd,
        }),
      ),
    );
    expect(err.message).toBe(
      `roles.rbac.authorization.k8s.io "x" is forbidden: user "o\\"dd\\tuser" (groups=[]) ${HELD}{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get"]}`,
    );
  });

  it('an update changing only ownerReferences and finalizers passes; any other change is checked', async () => {
    const { byResource } = setup();
    const rules = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    const old = role('x', 'dev', rules, {});
    const gcOnly = {
      ...old,
      metadata: { ...old.metadata, finalizers: ['f'], ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'u' }] },
    };
    await byResource('roles').check(write({ operation: 'UPDATE', object: gcOnly, oldObject: old }));
    const labelled = { ...gcOnly, metadata: { ...gcOnly.metadata, labels: { a: 'b' } } };
    await refusal(byResource('roles').check(write({ operation: 'UPDATE', object: labelled, oldObject: old })));
  });

  it('other operations and malformed rules are left to their own checks', async () => {
    const { byResource } = setup();
    await byResource('roles').check(
      write({ operation: 'DELETE', object: role('x', 'dev', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]) }),
    );
    await byResource('roles').check(
      write({ object: { apiVersion: V, kind: 'Role', metadata: { name: 'x', namespace: 'dev' }, rules: 'nonsense' } }),
    );
    await byResource('roles').check(
      write({ object: { apiVersion: V, kind: 'Role', metadata: { name: 'x', namespace: 'dev' }, rules: [null, 3, { verbs: 'x' }] } }),
    );
  });
});

describe('rbacWriteChecks: RoleBindings and ClusterRoleBindings', () => {
  it('passes a binding to a role whose rules the writer holds', async () => {
    const { byResource } = setup();
    await byResource('rolebindings').check(write({ object: binding('b', 'dev', clusterRoleRef('pod-reader')) }));
  });

  it('refuses a binding to a role granting more, with kube 403 text', async () => {
    const { byResource } = setup();
    const err = await refusal(byResource('rolebindings').check(write({ object: binding('b', 'dev', roleRef('pod-deleter')) })));
    expect(err.code).toBe(403);
    expect(err.message).toBe(
      `rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=["g1" "system:authenticated"]) ${HELD}{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`,
    );
  });

  it('a ClusterRoleBinding is judged by cluster-wide rules', async () => {
    const { byResource, cache } = setup();
    const err = await refusal(byResource('clusterrolebindings').check(write({ object: binding('b', '', clusterRoleRef('pod-reader')) })));
    expect(err.message).toBe(
      `clusterrolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=["g1" "system:authenticated"]) ${HELD}{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`,
    );
    addClusterRoleBinding(cache, 'bob-reads', [User('bob')], clusterRoleRef('pod-reader'));
    await byResource('clusterrolebindings').check(write({ object: binding('b', '', clusterRoleRef('pod-reader')) }));
  });

  it('the bind verb on the referenced role allows binding it (kube BindingAuthorized attributes)', async () => {
    const { byResource, cache, asked } = setup((c) =>
      addClusterRole(c, 'binder', [{ verbs: ['bind'], apiGroups: [G], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }]),
    );
    await refusal(byResource('rolebindings').check(write({ object: binding('b', 'dev', clusterRoleRef('cluster-admin')) })));
    expect(asked).toEqual([
      {
        user: bob,
        verb: 'bind',
        resourceRequest: true,
        namespace: 'dev',
        apiGroup: G,
        apiVersion: '*',
        resource: 'clusterroles',
        subresource: '',
        name: 'cluster-admin',
        path: '',
      },
    ]);
    addRoleBinding(cache, 'dev', 'binder', [User('bob')], clusterRoleRef('binder'));
    await byResource('rolebindings').check(write({ object: binding('b', 'dev', clusterRoleRef('cluster-admin')) }));
    // Delegated in "dev" only: a ClusterRoleBinding asks cluster-wide.
    await refusal(byResource('clusterrolebindings').check(write({ object: binding('b', '', clusterRoleRef('cluster-admin')) })));
    expect(asked.at(-1)?.namespace).toBe('');
  });

  it('bind on roles by name', async () => {
    const { byResource } = setup((c) => {
      addRole(c, 'dev', 'binder', [{ verbs: ['bind'], apiGroups: [G], resources: ['roles'], resourceNames: ['pod-deleter'] }]);
      addRoleBinding(c, 'dev', 'binder', [User('bob')], roleRef('binder'));
    });
    await byResource('rolebindings').check(write({ object: binding('b', 'dev', roleRef('pod-deleter')) }));
  });

  it('members of system:masters may bind anything, even a missing role', async () => {
    const { byResource } = setup();
    const root = { name: 'root', groups: ['system:masters'] };
    await byResource('clusterrolebindings').check(write({ object: binding('b', '', clusterRoleRef('nope')), userInfo: root }));
  });

  it('a missing role is kube 404 from the write path', async () => {
    const { byResource } = setup();
    const err = await refusal(byResource('rolebindings').check(write({ object: binding('b', 'dev', roleRef('nope')) })));
    expect(err.code).toBe(404);
    expect(err.message).toBe('roles.rbac.authorization.k8s.io "nope" not found');
    const err2 = await refusal(byResource('clusterrolebindings').check(write({ object: binding('b', '', clusterRoleRef('nope')) })));
    expect(err2.code).toBe(404);
    expect(err2.message).toBe('clusterroles.rbac.authorization.k8s.io "nope" not found');
  });

  it('a RoleBinding without a namespace is a 400', async () => {
    const { byResource } = setup();
    const err = await refusal(
      byResource('rolebindings').check(write({ object: binding('b', '', clusterRoleRef('pod-reader')), namespace: '' })),
    );
    expect(err.code).toBe(400);
    expect(err.message).toBe('namespace is required');
  });

  it('an update changing only GC fields passes; others are checked as creates are', async () => {
    const { byResource } = setup();
    const old = binding('b', 'dev', roleRef('pod-deleter'));
    const gcOnly = { ...old, metadata: { ...old.metadata, finalizers: ['x'] } };
    await byResource('rolebindings').check(write({ operation: 'UPDATE', object: gcOnly, oldObject: old }));
    const moreSubjects = { ...old, subjects: [User('carol'), User('dave')] };
    await refusal(byResource('rolebindings').check(write({ operation: 'UPDATE', object: moreSubjects, oldObject: old })));
  });

  it('an authorizer that fails has not allowed bind: the rules decide', async () => {
    const cache = new RBACCache();
    const rbac = new RBACAuthorizer(cache);
    const failing: Authorizer = {
      authorize: async () => {
        throw new Error('webhook down');
      },
    };
    const [, , rolebindings] = rbacWriteChecks({ authorizer: () => failing, ruleResolver: rbac.ruleResolver });
    addClusterRole(cache, 'empty', []);
    await rolebindings?.check(write({ object: binding('b', 'dev', clusterRoleRef('empty')) }));
    cache.clusterRoles.apply('MODIFIED', { apiVersion: V, kind: 'ClusterRole', metadata: { name: 'empty' }, rules: podReader });
    expect(
      (await refusal(rolebindings?.check(write({ object: binding('b', 'dev', clusterRoleRef('empty')) })) as Promise<void>)).code,
    ).toBe(403);
  });

  it("judges a binding as rbac/v1 defaults it: the check runs before the kind's defaults, kube's after its decoder's", async () => {
    const { byResource, asked } = setup((c) => {
      addClusterRole(c, 'binder', [{ verbs: ['bind'], apiGroups: [G], resources: ['roles'], resourceNames: ['pod-deleter'] }]);
      addClusterRoleBinding(c, 'bob-binds', [User('bob')], clusterRoleRef('binder'));
    });
    // (A null apiGroup never reaches the check: the Store's decoding reads it as Go does, as no apiGroup.)
    for (const apiGroup of [undefined, '']) {
      const object = { ...binding('b', 'dev', roleRef('pod-deleter')), roleRef: { apiGroup, kind: 'Role', name: 'pod-deleter' } };
      await byResource('rolebindings').check(write({ object }));
      expect(asked.at(-1)).toMatchObject({ verb: 'bind', apiGroup: G, resource: 'roles', name: 'pod-deleter' });
      // Not changed: the Store defaults its own copy.
      expect(object.roleRef.apiGroup).toBe(apiGroup);
    }
  });

  it('a roleRef that is no Role or ClusterRole reference grants nothing and is left to validation', async () => {
    const { byResource } = setup();
    await byResource('rolebindings').check(
      write({ object: { ...binding('b', 'dev', roleRef('x')), roleRef: { apiGroup: G, kind: 'Foo', name: 'x' } } }),
    );
    await byResource('rolebindings').check(write({ object: { ...binding('b', 'dev', roleRef('x')), roleRef: null } }));
  });
});

import { type KubeObject, type OwnerReference, StatusError } from '@kapi/apimachinery';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, type PolicyRule, RBACAuthorizer, RBACCache } from '@kapi/authz';
import { ConfigMap, defineResource, Secret } from '@kapi/registry';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AdmissionAttributes } from '../../attributes.ts';
import { ownerReferencesPermissionEnforcement } from './owner-references-permission.ts';
import { restMapperFor } from './rest-mapper.ts';

const Cluster = defineResource({
  group: 'example.kapi.dev',
  kind: 'Cluster',
  plural: 'clusters',
  namespaced: false,
  versions: [{ name: 'v1', schema: z.object({}) }],
});
const restMapper = restMapperFor(() => [ConfigMap, Secret, Cluster]);

const cm = (refs?: OwnerReference[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'child', namespace: 'ns', ...(refs ? { ownerReferences: refs } : {}) },
});
const secretOwner = (over: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'Secret',
  name: 'owner',
  uid: 'u1',
  ...over,
});
const clusterOwner = (over: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Cluster',
  name: 'c1',
  uid: 'u2',
  ...over,
});

function attrs(
  operation: 'CREATE' | 'UPDATE',
  object: KubeObject,
  oldObject: KubeObject | null = null,
  subresource = '',
): AdmissionAttributes {
  return {
    operation,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource,
    namespace: 'ns',
    name: 'child',
    object,
    oldObject,
    dryRun: false,
    userInfo: { name: 'bob', groups: ['system:authenticated'] },
  };
}

async function forbidden(p: Promise<void>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(403);
  return (err as StatusError).message;
}

/** RBAC granting bob `rules` in namespace "ns" (a Role) and `clusterRules` everywhere (a ClusterRole). */
function rbac(rules: PolicyRule[], clusterRules: PolicyRule[] = []): RBACAuthorizer {
  const cache = new RBACCache();
  const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }];
  cache.roles.apply('ADDED', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules });
  cache.roleBindings.apply('ADDED', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'rb', namespace: 'ns' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    subjects,
  });
  cache.clusterRoles.apply('ADDED', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'cr' },
    rules: clusterRules,
  });
  cache.clusterRoleBindings.apply('ADDED', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'crb' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' },
    subjects,
  });
  for (const feed of [cache.roles, cache.roleBindings, cache.clusterRoles, cache.clusterRoleBindings]) feed.listed();
  return new RBACAuthorizer(cache);
}

describe('OwnerReferencesPermissionEnforcement', () => {
  let plugin: ReturnType<typeof ownerReferencesPermissionEnforcement>;
  beforeEach(() => {
    plugin = ownerReferencesPermissionEnforcement({ authorizer: new AlwaysDenyAuthorizer(), restMapper });
  });

  it('handles creates and updates, and lets writes that keep the references through', async () => {
    expect(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].map((op) => plugin.handles(op as 'CREATE'))).toEqual([true, true, false, false]);
    await plugin.validate(attrs('CREATE', cm()));
    const refs = [secretOwner({ blockOwnerDeletion: true })];
    await plugin.validate(attrs('UPDATE', cm(refs), cm(refs)));
  });

  it('lets a create set non-blocking owners without any permission (its creator could have not made it)', async () => {
    await plugin.validate(attrs('CREATE', cm([secretOwner()])));
  });

  it("refuses an update changing the references to who may not delete the object, in kube's words", async () => {
    const msg = await forbidden(plugin.validate(attrs('UPDATE', cm([secretOwner()]), cm())));
    expect(msg).toBe(
      'configmaps "child" is forbidden: cannot set an ownerRef on a resource you can\'t delete: Everything is forbidden., <nil>',
    );
    const allowed = ownerReferencesPermissionEnforcement({
      authorizer: rbac([{ verbs: ['delete'], apiGroups: [''], resources: ['configmaps'] }]),
      restMapper,
    });
    await allowed.validate(attrs('UPDATE', cm([secretOwner()]), cm()));
    // Another's delete permission does not count.
    const other = ownerReferencesPermissionEnforcement({
      authorizer: rbac([{ verbs: ['delete'], apiGroups: [''], resources: ['secrets'] }]),
      restMapper,
    });
    expect(await forbidden(other.validate(attrs('UPDATE', cm(), cm([secretOwner()]))))).toBe(
      'configmaps "child" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>',
    );
  });

  it("needs update on the owner's finalizers to block its deletion, namespaced or not", async () => {
    const blockSecret = cm([secretOwner({ blockOwnerDeletion: true })]);
    const noFinalizers = ownerReferencesPermissionEnforcement({ authorizer: rbac([]), restMapper });
    expect(await forbidden(noFinalizers.validate(attrs('CREATE', blockSecret)))).toBe(
      'configmaps "child" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>',
    );
    const secretsFinalizers = rbac([{ verbs: ['update'], apiGroups: [''], resources: ['secrets/finalizers'], resourceNames: ['owner'] }]);
    const plugin2 = ownerReferencesPermissionEnforcement({ authorizer: secretsFinalizers, restMapper });
    await plugin2.validate(attrs('CREATE', blockSecret));
    // Another name is not covered.
    await forbidden(plugin2.validate(attrs('CREATE', cm([secretOwner({ name: 'other', blockOwnerDeletion: true })]))));
    // A cluster-scoped owner is asked about without a namespace: a Role of the namespace does not grant it.
    const blockCluster = cm([clusterOwner({ blockOwnerDeletion: true })]);
    const inNamespace = rbac([{ verbs: ['update'], apiGroups: ['example.kapi.dev'], resources: ['clusters/finalizers'] }]);
    await forbidden(ownerReferencesPermissionEnforcement({ authorizer: inNamespace, restMapper }).validate(attrs('CREATE', blockCluster)));
    const clusterWide = rbac([], [{ verbs: ['update'], apiGroups: ['example.kapi.dev'], resources: ['clusters/finalizers'] }]);
    await ownerReferencesPermissionEnforcement({ authorizer: clusterWide, restMapper }).validate(attrs('CREATE', blockCluster));
  });

  it('checks only references that newly block', async () => {
    const authorizer = rbac([{ verbs: ['delete'], apiGroups: [''], resources: ['configmaps'] }]);
    const p = ownerReferencesPermissionEnforcement({ authorizer, restMapper });
    const blocking = secretOwner({ blockOwnerDeletion: true });
    // Adding a non-blocking reference next to one that already blocked.
    await p.validate(attrs('UPDATE', cm([blocking, clusterOwner()]), cm([blocking])));
    // Turning blockOwnerDeletion on is new blocking.
    await forbidden(p.validate(attrs('UPDATE', cm([blocking]), cm([secretOwner({ blockOwnerDeletion: false })]))));
    // A second reference sharing the uid of a blocking one is not hidden by it.
    const twin = secretOwner({ name: 'victim', blockOwnerDeletion: false });
    await forbidden(p.validate(attrs('UPDATE', cm([{ ...twin, blockOwnerDeletion: true }, blocking]), cm([twin, blocking]))));
  });

  it('lets a user who may finalize anything block any owner, even of a kind it cannot map', async () => {
    const p = ownerReferencesPermissionEnforcement({ authorizer: new AlwaysAllowAuthorizer(), restMapper });
    await p.validate(
      attrs('CREATE', cm([{ apiVersion: 'nowhere.example/v9', kind: 'Ghost', name: 'g', uid: 'u', blockOwnerDeletion: true }])),
    );
  });

  it("refuses to block an owner whose kind it cannot map, in kube's words", async () => {
    const p = ownerReferencesPermissionEnforcement({ authorizer: rbac([]), restMapper });
    const msg = await forbidden(
      p.validate(attrs('CREATE', cm([{ apiVersion: 'nowhere.example/v9', kind: 'Ghost', name: 'g', uid: 'u', blockOwnerDeletion: true }]))),
    );
    expect(msg).toBe(
      'configmaps "child" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion nowhere.example/v9 Kind Ghost: no matches for kind "Ghost" in version "nowhere.example/v9"',
    );
  });

  it('skips pods/status, and reads the authorizer at each request', async () => {
    const pods = { ...attrs('UPDATE', cm([secretOwner()]), cm(), 'status'), resource: { group: '', version: 'v1', resource: 'pods' } };
    await plugin.validate(pods);
    let current: RBACAuthorizer | AlwaysAllowAuthorizer = rbac([]);
    const late = ownerReferencesPermissionEnforcement({ authorizer: () => current, restMapper });
    await forbidden(late.validate(attrs('UPDATE', cm([secretOwner()]), cm())));
    current = new AlwaysAllowAuthorizer();
    await late.validate(attrs('UPDATE', cm([secretOwner()]), cm()));
  });
});

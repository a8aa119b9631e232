import { type KubeObject, realClock } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/authn';
import { defineResource, listAndWatch, type ObjectOf, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AuthorizationAttributes } from '../authorizer.ts';
import { unionAuthorizer } from '../union.ts';
import { Graph } from './graph.ts';
import { GraphAuthorizer, nodeIdentity } from './graph-authorizer.ts';
import { GraphFeed, vertexOf } from './graph-feed.ts';

// The example: Gizmos bound to a node by spec.nodeName; a node may get only its own Gizmos.
const Gizmo = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  versions: [{ name: 'v1', storage: true, schema: z.object({ spec: z.object({ nodeName: z.string().optional() }) }) }],
});
type Gizmo = ObjectOf<typeof Gizmo>;

const gizmoEdges = (g: Gizmo) => {
  const from = vertexOf('Gizmo', g);
  return from && g.spec.nodeName ? [{ from, to: { kind: 'Node', namespace: '', name: g.spec.nodeName } }] : [];
};

const node = (name: string): UserInfo => ({ name: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });

function gizmoRequest(user: UserInfo, name: string, verb = 'get', extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user,
    verb,
    resourceRequest: true,
    namespace: 'default',
    apiGroup: 'example.kapi.dev',
    apiVersion: 'v1',
    resource: 'gizmos',
    subresource: '',
    name,
    path: `/apis/example.kapi.dev/v1/namespaces/default/gizmos/${name}`,
    ...extra,
  };
}

const RULES = [{ apiGroup: 'example.kapi.dev', resource: 'gizmos', kind: 'Gizmo', verbs: ['get'] }];

describe('Graph', () => {
  const v = (kind: string, name: string, namespace = '') => ({ kind, namespace, name });

  it('follows edges transitively, and an owner replacing or removing its edges changes what is reachable', () => {
    const g = new Graph();
    // A pod-like owner declares pod→node and secret→pod; the secret reaches the node through the pod.
    g.setEdges(v('Pod', 'p', 'ns'), [
      { from: v('Pod', 'p', 'ns'), to: v('Node', 'n1') },
      { from: v('Secret', 's', 'ns'), to: v('Pod', 'p', 'ns') },
    ]);
    expect(g.hasPath(v('Secret', 's', 'ns'), v('Node', 'n1'))).toBe(true);
    expect(g.hasPath(v('Node', 'n1'), v('Secret', 's', 'ns'))).toBe(false);
    expect(g.hasPath(v('Secret', 's', 'other'), v('Node', 'n1'))).toBe(false);
    // A second owner shares secret→pod: it stays after the first owner goes.
    g.setEdges(v('Binding', 'b', 'ns'), [{ from: v('Secret', 's', 'ns'), to: v('Pod', 'p', 'ns') }]);
    g.setEdges(v('Pod', 'p', 'ns'), [{ from: v('Pod', 'p', 'ns'), to: v('Node', 'n2') }]);
    expect(g.hasPath(v('Secret', 's', 'ns'), v('Node', 'n1'))).toBe(false);
    expect(g.hasPath(v('Secret', 's', 'ns'), v('Node', 'n2'))).toBe(true);
    g.removeOwner(v('Binding', 'b', 'ns'));
    expect(g.hasPath(v('Secret', 's', 'ns'), v('Node', 'n2'))).toBe(false);
    g.removeOwner(v('Pod', 'p', 'ns'));
    expect(g.edgeCount).toBe(0);
  });

  it('terminates on cycles', () => {
    const g = new Graph();
    g.setEdges(v('A', 'a'), [
      { from: v('A', 'a'), to: v('B', 'b') },
      { from: v('B', 'b'), to: v('A', 'a') },
    ]);
    expect(g.hasPath(v('A', 'a'), v('C', 'c'))).toBe(false);
    expect(g.hasPath(v('B', 'b'), v('A', 'a'))).toBe(true);
  });
});

describe('GraphAuthorizer (the pattern of kube Node authorizer)', () => {
  const graph = new Graph();
  const feed = new GraphFeed<Gizmo>(graph, 'Gizmo', gizmoEdges);
  const authz = new GraphAuthorizer({ graph, identify: nodeIdentity, rules: RULES, subjectLabel: 'node' });
  const gizmo = (name: string, nodeName?: string): KubeObject => ({
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Gizmo',
    metadata: { name, namespace: 'default' },
    spec: nodeName ? { nodeName } : {},
  });
  feed.apply('ADDED', gizmo('g1', 'n1'));
  feed.apply('ADDED', gizmo('g2', 'n2'));

  it("allows a node to get the Gizmos bound to it; anything else is NoOpinion with kube's reasons", async () => {
    expect(await authz.authorize(gizmoRequest(node('n1'), 'g1'))).toEqual({ decision: 'Allow', reason: '' });
    expect(await authz.authorize(gizmoRequest(node('n1'), 'g2'))).toEqual({
      decision: 'NoOpinion',
      reason: "no relationship found between node 'n1' and this object",
    });
    expect(await authz.authorize(gizmoRequest(node('n1'), 'g1', 'update'))).toEqual({
      decision: 'NoOpinion',
      reason: 'can only get individual resources of this type',
    });
    expect((await authz.authorize(gizmoRequest(node('n1'), 'g1', 'get', { subresource: 'status' }))).reason).toBe('cannot get subresource');
    expect((await authz.authorize(gizmoRequest(node('n1'), '', 'get'))).reason).toBe('No Object name found');
    expect((await authz.authorize(gizmoRequest(node('n1'), 'g1', 'get', { namespace: 'other' }))).decision).toBe('NoOpinion');
  });

  it('passes on, without a reason, users that are not nodes and resources it does not cover', async () => {
    expect(await authz.authorize(gizmoRequest({ name: 'system:node:n1', groups: ['system:authenticated'] }, 'g1'))).toEqual({
      decision: 'NoOpinion',
      reason: '',
    });
    expect(await authz.authorize(gizmoRequest({ name: 'alice', groups: ['system:nodes'] }, 'g1'))).toEqual({
      decision: 'NoOpinion',
      reason: '',
    });
    expect(await authz.authorize(gizmoRequest(node('n1'), 'cm', 'get', { apiGroup: '', resource: 'configmaps' }))).toEqual({
      decision: 'NoOpinion',
      reason: '',
    });
    expect(await authz.authorize(gizmoRequest({ name: 'system:node:', groups: ['system:nodes'] }, 'g1'))).toEqual({
      decision: 'NoOpinion',
      reason: 'unknown node for user "system:node:"',
    });
  });

  it('lets a later authorizer decide what it has no opinion on (union with RBAC-like authorizers)', async () => {
    const rbacLike = {
      authorize: async (a: AuthorizationAttributes) => ({
        decision: a.verb === 'list' ? ('Allow' as const) : ('NoOpinion' as const),
        reason: '',
      }),
    };
    const both = unionAuthorizer(authz, rbacLike);
    expect((await both.authorize(gizmoRequest(node('n1'), '', 'list'))).decision).toBe('Allow');
    expect(await both.authorize(gizmoRequest(node('n1'), 'g2'))).toEqual({
      decision: 'NoOpinion',
      reason: "no relationship found between node 'n1' and this object",
    });
  });

  it("cannot list a node's rules (incomplete, as kube's); others get none, complete", async () => {
    expect(await authz.rulesFor(node('n1'), 'default')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      error: new Error('node authorizer does not support user rule resolution'),
    });
    expect(await authz.rulesFor({ name: 'alice', groups: [] }, 'default')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
  });
});

describe('GraphFeed from a registry Store watch', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  /** Waits until `check` holds (the watch delivers asynchronously). */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error('condition not met within 5 s');
  }

  it('follows Gizmos as they are created, rebound, unbound and deleted', async () => {
    const store = new Store(Gizmo, { storage: new MemoryStorage() });
    const ctx = { namespace: 'default' };
    await store.create(ctx, {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Gizmo',
      metadata: { name: 'before-start' },
      spec: { nodeName: 'n1' },
    });

    const graph = new Graph();
    const feed = new GraphFeed<Gizmo>(graph, 'Gizmo', gizmoEdges);
    const authz = new GraphAuthorizer({ graph, identify: nodeIdentity, rules: RULES, subjectLabel: 'node' });
    const abort = new AbortController();
    stops.push(() => abort.abort());
    let listed = false;
    const errors: unknown[] = [];
    void listAndWatch(store, {
      onEvent: (type, obj) => feed.apply(type, obj),
      onList: (items) => {
        feed.listed(items);
        listed = true;
      },
      signal: abort.signal,
      clock: realClock,
      retryAfterMs: 10,
      onError: (err) => void errors.push(err),
    });
    const can = async (nodeName: string, gizmoName: string) =>
      (await authz.authorize(gizmoRequest(node(nodeName), gizmoName))).decision === 'Allow';

    await eventually(async () => listed);
    expect(await can('n1', 'before-start')).toBe(true);

    await store.create(ctx, { apiVersion: 'example.kapi.dev/v1', kind: 'Gizmo', metadata: { name: 'g' }, spec: { nodeName: 'n1' } });
    await eventually(() => can('n1', 'g'));
    expect(await can('n2', 'g')).toBe(false);

    // Rebound to n2: n1 loses it.
    await store.patch(ctx, 'g', { spec: { nodeName: 'n2' } }, 'merge');
    await eventually(() => can('n2', 'g'));
    expect(await can('n1', 'g')).toBe(false);

    // Unbound, then deleted: nobody has it.
    await store.patch(ctx, 'g', { spec: { nodeName: null } }, 'merge');
    await eventually(async () => !(await can('n2', 'g')));
    await store.delete(ctx, 'before-start');
    await eventually(async () => !(await can('n1', 'before-start')));
    expect(graph.edgeCount).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a relist drops the objects deleted while no watch was open', () => {
    const graph = new Graph();
    const feed = new GraphFeed<Gizmo>(graph, 'Gizmo', gizmoEdges);
    const g = (name: string): KubeObject => ({
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Gizmo',
      metadata: { name, namespace: 'default' },
      spec: { nodeName: 'n1' },
    });
    feed.apply('ADDED', g('a'));
    feed.apply('ADDED', g('b'));
    feed.listed([g('b')]);
    expect(graph.hasPath({ kind: 'Gizmo', namespace: 'default', name: 'a' }, { kind: 'Node', namespace: '', name: 'n1' })).toBe(false);
    expect(graph.hasPath({ kind: 'Gizmo', namespace: 'default', name: 'b' }, { kind: 'Node', namespace: '', name: 'n1' })).toBe(true);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RBACCache } from './rbac-cache.ts';
import { appliesToUser } from './rule-resolver.ts';
import type { RoleBinding, Subject } from './types.ts';

const G = 'rbac.authorization.k8s.io';
const names = ['a', 'b', 'c'];
const namespaces = ['', 'x', 'y'];

const subject: fc.Arbitrary<Subject> = fc.oneof(
  fc.record({ kind: fc.constant('User'), apiGroup: fc.constant(G), name: fc.constantFrom(...names, 'system:serviceaccount:x:a') }),
  fc.record({ kind: fc.constant('Group'), apiGroup: fc.constant(G), name: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('ServiceAccount'), name: fc.constantFrom(...names), namespace: fc.constantFrom(...namespaces) }),
  fc.record({ kind: fc.constant('Robot'), name: fc.constantFrom(...names) }),
);
const event = fc.record({
  type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED') as fc.Arbitrary<'ADDED' | 'MODIFIED' | 'DELETED'>,
  cluster: fc.boolean(),
  namespace: fc.constantFrom('x', 'y'),
  name: fc.constantFrom('b1', 'b2', 'b3'),
  subjects: fc.array(subject, { maxLength: 4 }),
});
const user = fc.record({
  name: fc.constantFrom(...names, 'system:serviceaccount:x:a', 'system:serviceaccount:y:b', 'system:serviceaccount::a'),
  groups: fc.array(fc.constantFrom(...names), { maxLength: 3 }),
});

describe('the subject index', () => {
  it('gives exactly the bindings kube appliesTo finds by scanning them all, after any events', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), fc.array(user, { minLength: 1, maxLength: 5 }), (events, users) => {
        const cache = new RBACCache();
        // The naive model: every binding as last written, scanned in full as kube's listers hand them over.
        const cluster = new Map<string, RoleBinding>();
        const namespaced = new Map<string, RoleBinding>();
        for (const e of events) {
          const obj: RoleBinding = {
            apiVersion: `${G}/v1`,
            kind: e.cluster ? 'ClusterRoleBinding' : 'RoleBinding',
            metadata: e.cluster ? { name: e.name } : { name: e.name, namespace: e.namespace },
            subjects: e.subjects,
            roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'r' },
          };
          (e.cluster ? cache.clusterRoleBindings : cache.roleBindings).apply(e.type, obj);
          const model = e.cluster ? cluster : namespaced;
          const key = `${e.namespace}/${e.name}`;
          if (e.type === 'DELETED') model.delete(e.cluster ? e.name : key);
          else model.set(e.cluster ? e.name : key, obj);
        }
        const applies = (u: { name: string; groups: string[] }, b: RoleBinding, ns: string) =>
          (b.subjects ?? []).some((s) => appliesToUser(u, s, ns));
        const sorted = (bs: Iterable<RoleBinding>) => [...bs].map((b) => `${b.metadata.namespace ?? ''}/${b.metadata.name}`).sort();
        for (const u of users) {
          const got = cache.clusterRoleBindingsFor(u);
          expect(new Set(got).size).toBe(got.length);
          expect(sorted(got.filter((b) => applies(u, b, '')))).toEqual(sorted([...cluster.values()].filter((b) => applies(u, b, ''))));
          for (const ns of ['x', 'y']) {
            const gotNs = cache.roleBindingsFor(u, ns);
            expect(new Set(gotNs).size).toBe(gotNs.length);
            const want = [...namespaced.values()].filter((b) => b.metadata.namespace === ns && applies(u, b, ns));
            expect(sorted(gotNs.filter((b) => applies(u, b, ns)))).toEqual(sorted(want));
            // Nothing of another namespace.
            expect(gotNs.every((b) => b.metadata.namespace === ns)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

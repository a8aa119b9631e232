import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { covers } from '../escalation/covers.ts';
import type { ClusterRole, PolicyRule } from '../types.ts';
import { AUTOUPDATE_ANNOTATION } from './kube-policy.ts';
import { computeReconciledRole } from './reconcile-role.ts';

const role = (rules: PolicyRule[] | undefined, extra: Partial<ClusterRole> = {}): ClusterRole => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  ...extra,
  metadata: { name: 'r', ...extra.metadata },
  ...(rules ? { rules } : {}),
});

const getPods: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
const readPods: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
const getWidgets: PolicyRule = { verbs: ['get'], apiGroups: ['example.kapi.dev'], resources: ['widgets'] };

describe('computeReconciledRole', () => {
  it('adds the expected rules the existing role does not cover, broken down as kube does, and keeps the others', () => {
    const r = computeReconciledRole(role([getPods, getWidgets]), role([readPods]));
    expect(r.operation).toBe('update');
    expect(r.missingRules).toEqual([{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
    expect(r.role.rules).toEqual([getPods, getWidgets, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
    expect(r.extraRules).toEqual([getWidgets]);
  });

  it('changes nothing when the existing rules cover the expected ones, however they are written', () => {
    const r = computeReconciledRole(role([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), role([readPods]));
    expect(r.operation).toBe('none');
    expect(r.missingRules).toEqual([]);
  });

  it('merges labels and annotations, the existing values winning', () => {
    const existing = role([getPods], { metadata: { name: 'r', labels: { a: 'user', u: '1' }, annotations: { note: 'x' } } });
    const expected = role([getPods], {
      metadata: { name: 'r', labels: { a: 'kube', b: 'kube' }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    });
    const r = computeReconciledRole(existing, expected);
    expect(r.operation).toBe('update');
    expect(r.role.metadata.labels).toEqual({ a: 'user', b: 'kube', u: '1' });
    expect(r.role.metadata.annotations).toEqual({ note: 'x', [AUTOUPDATE_ANNOTATION]: 'true' });
    expect(computeReconciledRole(r.role, expected).operation).toBe('none');
  });

  it('unions aggregation selectors, comparing them semantically', () => {
    const sel = (k: string) => ({ matchLabels: { [k]: 'true' } });
    const existing = role(undefined, {
      aggregationRule: { clusterRoleSelectors: [sel('mine'), { ...sel('kube'), matchExpressions: [] }] },
    });
    const expected = role(undefined, { aggregationRule: { clusterRoleSelectors: [sel('kube'), sel('more')] } });
    const r = computeReconciledRole(existing, expected);
    expect(r.operation).toBe('update');
    expect(r.missingSelectors).toEqual([sel('more')]);
    expect(r.role.aggregationRule?.clusterRoleSelectors).toEqual([sel('mine'), { ...sel('kube'), matchExpressions: [] }, sel('more')]);
    expect(computeReconciledRole(r.role, expected).operation).toBe('none');
  });

  it('does not count an aggregated role’s filled-in rules as extra, and adds a missing aggregation rule', () => {
    const aggregation = { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] };
    expect(
      computeReconciledRole(role([getPods], { aggregationRule: aggregation }), role(undefined, { aggregationRule: aggregation })),
    ).toMatchObject({
      operation: 'none',
      extraRules: [],
    });
    const r = computeReconciledRole(role([getPods]), role(undefined, { aggregationRule: aggregation }));
    expect(r.role.aggregationRule).toEqual(aggregation);
    expect(r.role.rules).toEqual([getPods]);
  });

  it('drops an aggregation rule the expected role does not have', () => {
    const r = computeReconciledRole(role([getPods], { aggregationRule: { clusterRoleSelectors: [] } }), role([getPods]));
    expect(r.operation).toBe('update');
    expect(r.role.aggregationRule).toBeUndefined();
  });

  it('marks a role annotated autoupdate "false" as protected', () => {
    const r = computeReconciledRole(
      role([], { metadata: { name: 'r', annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } } }),
      role([readPods]),
    );
    expect(r.protected).toBe(true);
    expect(r.operation).toBe('update');
  });

  it('replaces rules and selectors with removeExtraPermissions', () => {
    const r = computeReconciledRole(role([getPods, getWidgets]), role([readPods]), true);
    expect(r.role.rules).toEqual([readPods]);
  });

  it('leaves its inputs alone', () => {
    const existing = role([getPods]);
    computeReconciledRole(existing, role([readPods], { metadata: { name: 'r', labels: { a: 'b' } } }));
    expect(existing).toEqual(role([getPods]));
  });

  it('ends covering the expected rules, for any existing rules (property)', () => {
    const word = fc.constantFrom('', 'apps', '*', 'pods', 'pods/log', '*/scale', 'get', 'list', 'a', 'b');
    const rule = fc.record({
      verbs: fc.array(fc.constantFrom('get', 'list', '*'), { minLength: 1, maxLength: 2 }),
      apiGroups: fc.array(word, { minLength: 1, maxLength: 2 }),
      resources: fc.array(word, { minLength: 1, maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 4 }), fc.array(rule, { maxLength: 4 }), (existing, expected) => {
        const r = computeReconciledRole(role(existing), role(expected));
        expect(covers(r.role.rules ?? [], expected).covered).toBe(true);
        expect(covers(r.role.rules ?? [], existing).covered).toBe(true);
        expect(computeReconciledRole(r.role, role(expected)).operation).toBe('none');
      }),
      { numRuns: 200 },
    );
  });
});

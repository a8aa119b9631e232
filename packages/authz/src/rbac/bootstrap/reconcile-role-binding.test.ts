import { describe, expect, it } from 'vitest';
import type { ClusterRoleBinding, Subject } from '../types.ts';
import { AUTOUPDATE_ANNOTATION } from './kube-policy.ts';
import { computeReconciledRoleBinding } from './reconcile-role-binding.ts';

const group = (name: string): Subject => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name });
const binding = (subjects: Subject[], extra: Partial<ClusterRoleBinding> = {}): ClusterRoleBinding => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  ...extra,
  metadata: { name: 'b', ...extra.metadata },
  subjects,
});

describe('computeReconciledRoleBinding', () => {
  it('appends the expected subjects the binding lacks and keeps the others', () => {
    const user: Subject = { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' };
    const r = computeReconciledRoleBinding(binding([user, group('a')]), binding([group('a'), group('b'), group('b')]));
    expect(r.operation).toBe('update');
    expect(r.missingSubjects).toEqual([group('b')]);
    expect(r.extraSubjects).toEqual([user]);
    expect(r.binding.subjects).toEqual([user, group('a'), group('b')]);
    expect(computeReconciledRoleBinding(r.binding, binding([group('a'), group('b')])).operation).toBe('none');
  });

  it('compares subjects field by field, an absent field being ""', () => {
    const sa: Subject = { kind: 'ServiceAccount', name: 'default', namespace: 'ns' };
    expect(computeReconciledRoleBinding(binding([{ ...sa, apiGroup: '' }]), binding([sa])).operation).toBe('none');
    expect(computeReconciledRoleBinding(binding([{ ...sa, namespace: 'other' }]), binding([sa])).operation).toBe('update');
  });

  it('recreates a binding whose roleRef differs, as the expected binding', () => {
    const expected = binding([group('a')]);
    const r = computeReconciledRoleBinding(
      binding([group('a'), group('x')], { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' } }),
      expected,
    );
    expect(r.operation).toBe('recreate');
    expect(r.binding).toBe(expected);
  });

  it('merges labels and annotations, the existing values winning', () => {
    const r = computeReconciledRoleBinding(
      binding([group('a')], { metadata: { name: 'b', labels: { l: 'user' } } }),
      binding([group('a')], { metadata: { name: 'b', labels: { l: 'kube', k: 'v' }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } } }),
    );
    expect(r.operation).toBe('update');
    expect(r.binding.metadata.labels).toEqual({ l: 'user', k: 'v' });
    expect(r.binding.metadata.annotations).toEqual({ [AUTOUPDATE_ANNOTATION]: 'true' });
  });

  it('marks a binding annotated autoupdate "false" as protected, a roleRef change too', () => {
    const existing = binding([], {
      metadata: { name: 'b', annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    });
    expect(computeReconciledRoleBinding(existing, binding([group('a')]))).toMatchObject({ protected: true, operation: 'recreate' });
  });

  it('replaces the subjects with removeExtraSubjects', () => {
    expect(computeReconciledRoleBinding(binding([group('x')]), binding([group('a')]), true).binding.subjects).toEqual([group('a')]);
  });
});

import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../crd/types.ts';
import { FinalizerController } from './finalizer-controller.ts';

const crd = (over: Partial<CustomResourceDefinition['metadata']>, terminating?: string): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'ws.example.com', resourceVersion: '1', ...over },
  spec: { group: 'example.com', names: { plural: 'ws', kind: 'W' }, scope: 'Namespaced', versions: [] },
  status: {
    conditions: [
      { type: 'Established', status: 'True' },
      ...(terminating ? [{ type: 'Terminating', status: 'True', reason: terminating }] : []),
    ],
  },
});

describe('FinalizerController.wants (kube’s updateCustomResourceDefinition)', () => {
  const deleting = { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['customresourcecleanup.apiextensions.k8s.io'] };
  it('takes a CRD being deleted that keeps the cleanup finalizer, and not one that is not being deleted or lost it', () => {
    expect(FinalizerController.wants(crd(deleting), crd({}))).toBe(true);
    expect(FinalizerController.wants(crd(deleting), undefined)).toBe(true);
    expect(FinalizerController.wants(crd({}), undefined)).toBe(false);
    expect(FinalizerController.wants(crd({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other'] }), undefined)).toBe(false);
  });
  it('ignores a change of the Terminating condition alone (its own writes), but takes a resync and any other change', () => {
    const before = crd({ ...deleting, resourceVersion: '5' }, 'InstanceDeletionPending');
    expect(FinalizerController.wants(crd({ ...deleting, resourceVersion: '6' }, 'InstanceDeletionInProgress'), before)).toBe(false);
    expect(FinalizerController.wants(crd({ ...deleting, resourceVersion: '5' }, 'InstanceDeletionPending'), before)).toBe(true);
    expect(
      FinalizerController.wants(crd({ ...deleting, resourceVersion: '6', labels: { a: 'b' } }, 'InstanceDeletionInProgress'), before),
    ).toBe(true);
  });
});

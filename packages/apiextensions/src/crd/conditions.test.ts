import { describe, expect, it } from 'vitest';
import {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  ESTABLISHED_INITIAL_NAMES_ACCEPTED,
  findCRDCondition,
  isCRDConditionEquivalent,
  isCRDConditionTrue,
  setCRDCondition,
  TERMINATING_INSTANCE_DELETION_IN_PROGRESS,
  terminatingFailed,
} from './conditions.ts';
import { markCustomResourceDefinitionForDeletion } from './crd-deletion.ts';
import type { CustomResourceDefinition } from './types.ts';

const crd = (): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com', finalizers: ['other'] },
  spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [] },
});

describe('CRD conditions', () => {
  it('sets a new condition with its transition time, and moves the time only when the status changes', () => {
    const c = crd();
    setCRDCondition(
      c,
      { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' },
      't1',
    );
    setCRDCondition(c, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, 't2');
    expect(c.status?.conditions).toEqual([
      { type: 'Established', status: 'False', lastTransitionTime: 't1', reason: 'NotAccepted', message: 'not all names are accepted' },
    ]);
    setCRDCondition(c, ESTABLISHED_INITIAL_NAMES_ACCEPTED, 't3');
    expect(findCRDCondition(c, 'Established')).toEqual({ ...ESTABLISHED_INITIAL_NAMES_ACCEPTED, lastTransitionTime: 't3' });
    expect(isCRDConditionTrue(c, 'Established')).toBe(true);
    expect(isCRDConditionTrue(c, 'NamesAccepted')).toBe(false);
    expect(isCRDConditionEquivalent(findCRDCondition(c, 'Established'), ESTABLISHED_INITIAL_NAMES_ACCEPTED)).toBe(true);
    expect(isCRDConditionEquivalent(undefined, ESTABLISHED_INITIAL_NAMES_ACCEPTED)).toBe(false);
  });

  it("words the finalizer controller's conditions as kube does", () => {
    expect(TERMINATING_INSTANCE_DELETION_IN_PROGRESS).toEqual({
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionInProgress',
      message: 'CustomResource deletion is in progress',
    });
    expect(terminatingFailed.delete('boom').message).toBe('could not issue all deletes: boom');
  });

  it('marks a CRD for deletion as kube’s CRD REST delete does, once', () => {
    const c = crd();
    markCustomResourceDefinitionForDeletion(c, '2026-03-01T10:00:00Z');
    markCustomResourceDefinitionForDeletion(c, '2026-03-01T11:00:00Z');
    expect(c.metadata.deletionTimestamp).toBe('2026-03-01T10:00:00Z');
    expect(c.metadata.finalizers).toEqual(['other', CUSTOM_RESOURCE_CLEANUP_FINALIZER]);
    expect(c.status?.conditions).toEqual([
      {
        type: 'Terminating',
        status: 'True',
        lastTransitionTime: '2026-03-01T10:00:00Z',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      },
    ]);
  });
});

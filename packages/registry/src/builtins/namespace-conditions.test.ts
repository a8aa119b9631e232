import { describe, expect, it } from 'vitest';
import type { NamespaceCondition } from './namespace.ts';
import { type ContentTotals, updateNamespaceConditions } from './namespace-conditions.ts';

const clean: ContentTotals = { remainingByResource: new Map(), remainingByFinalizer: new Map(), deleteErrors: [] };
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';

describe('updateNamespaceConditions', () => {
  it('adds the five OK conditions to a namespace that has none', () => {
    expect(updateNamespaceConditions(undefined, clean, T0)).toEqual([
      {
        type: 'NamespaceDeletionDiscoveryFailure',
        status: 'False',
        lastTransitionTime: T0,
        reason: 'ResourcesDiscovered',
        message: 'All resources successfully discovered',
      },
      {
        type: 'NamespaceDeletionGVParsingFailure',
        status: 'False',
        lastTransitionTime: T0,
        reason: 'ParsedGroupVersions',
        message: 'All legacy kube types successfully parsed',
      },
      {
        type: 'NamespaceDeletionContentFailure',
        status: 'False',
        lastTransitionTime: T0,
        reason: 'ContentDeleted',
        message: 'All content successfully deleted, may be waiting on finalization',
      },
      {
        type: 'NamespaceContentRemaining',
        status: 'False',
        lastTransitionTime: T0,
        reason: 'ContentRemoved',
        message: 'All content successfully removed',
      },
      {
        type: 'NamespaceFinalizersRemaining',
        status: 'False',
        lastTransitionTime: T0,
        reason: 'ContentHasNoFinalizers',
        message: 'All content-preserving finalizers finished',
      },
    ]);
  });

  it('reports nothing changed when every condition already says the same', () => {
    const ok = updateNamespaceConditions(undefined, clean, T0);
    expect(updateNamespaceConditions(ok, clean, T1)).toBeUndefined();
  });

  it('words what remains, sorted, and moves lastTransitionTime only when the status flips', () => {
    const ok = updateNamespaceConditions(undefined, clean, T0) as NamespaceCondition[];
    const totals: ContentTotals = {
      remainingByResource: new Map([
        ['widgets.example.com', 2],
        ['configmaps.', 1],
      ]),
      remainingByFinalizer: new Map([
        ['example.com/b', 1],
        ['example.com/a', 2],
      ]),
      deleteErrors: ['z failed', 'a failed'],
    };
    const failing = updateNamespaceConditions(ok, totals, T1) as NamespaceCondition[];
    const byType = (cs: NamespaceCondition[], t: string) => cs.find((c) => c.type === t);
    expect(byType(failing, 'NamespaceContentRemaining')).toEqual({
      type: 'NamespaceContentRemaining',
      status: 'True',
      lastTransitionTime: T1,
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances',
    });
    expect(byType(failing, 'NamespaceFinalizersRemaining')).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message:
        'Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, example.com/b in 1 resource instances',
    });
    expect(byType(failing, 'NamespaceDeletionContentFailure')).toMatchObject({
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: 'Failed to delete all resource types, 2 remaining: a failed, z failed',
    });
    expect(byType(failing, 'NamespaceDeletionDiscoveryFailure')?.lastTransitionTime).toBe(T0);
    // Same status, new message: the time stays.
    const fewer = updateNamespaceConditions(
      failing,
      { ...totals, remainingByResource: new Map([['configmaps.', 1]]) },
      '2026-01-01T00:02:00Z',
    ) as NamespaceCondition[];
    expect(byType(fewer, 'NamespaceContentRemaining')).toMatchObject({
      lastTransitionTime: T1,
      message: 'Some resources are remaining: configmaps. has 1 resource instances',
    });
    // The input is left alone.
    expect(byType(ok, 'NamespaceContentRemaining')?.status).toBe('False');
  });
});

import { describe, expect, it } from 'vitest';
import { goObjectMeta } from './go-object-meta.ts';

describe('goObjectMeta (ObjectMeta after Go decodes and encodes it)', () => {
  it('leaves out null members, "" strings, a zero generation and empty maps and lists', () => {
    const meta: Record<string, unknown> = {
      name: 'a',
      generateName: '',
      namespace: '',
      uid: '',
      resourceVersion: '',
      selfLink: '',
      generation: 0,
      labels: {},
      annotations: null,
      finalizers: [],
      ownerReferences: [],
      creationTimestamp: null,
      deletionTimestamp: null,
    };
    goObjectMeta(meta);
    expect(meta).toEqual({ name: 'a' });
  });

  it('keeps values (a null label or annotation value is ""), a zero grace period (a pointer) and an empty managedFields (the reset the field manager reads)', () => {
    const meta: Record<string, unknown> = {
      name: 'b',
      generation: 2,
      labels: { a: '', b: null },
      annotations: { c: null },
      finalizers: ['x'],
      deletionGracePeriodSeconds: 0,
      managedFields: [],
    };
    goObjectMeta(meta);
    expect(meta).toEqual({
      name: 'b',
      generation: 2,
      labels: { a: '', b: '' },
      annotations: { c: '' },
      finalizers: ['x'],
      deletionGracePeriodSeconds: 0,
      managedFields: [],
    });
  });
});

import { describe, expect, it } from 'vitest';
import { dropUndeclaredFields } from './declared-fields.ts';

describe('dropUndeclaredFields: what decoding into the Go types drops (and strict decoding reports), for the kinds the protobuf codec models', () => {
  it('names the fields a Go type does not declare, nested, in list items and in metadata, in document order', () => {
    const body = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { name: 'x', colour: 'red', ownerReferences: [{ kind: 'A', name: 'a', uid: '1', apiVersion: 'v1', extra: 1 }] },
      spec: {
        user: 'carol',
        usr: 'typo',
        resourceAttributes: { verb: 'get', verbs: ['get'], labelSelector: { requirements: [{ key: 'a', operator: 'In', value: 'x' }] } },
      },
      extra: true,
    };
    expect(dropUndeclaredFields('authorization.k8s.io/v1', 'SubjectAccessReview', body)).toEqual([
      'metadata.colour',
      'metadata.ownerReferences[0].extra',
      'spec.usr',
      'spec.resourceAttributes.verbs',
      'spec.resourceAttributes.labelSelector.requirements[0].value',
      'extra',
    ]);
    // What is left is what Go decodes.
    expect(body).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { name: 'x', ownerReferences: [{ kind: 'A', name: 'a', uid: '1', apiVersion: 'v1' }] },
      spec: { user: 'carol', resourceAttributes: { verb: 'get', labelSelector: { requirements: [{ key: 'a', operator: 'In' }] } } },
    });
  });

  it('does not look into what Go holds as no struct: times, FieldsV1, ExtraValue lists, maps of strings', () => {
    const body = {
      metadata: {
        labels: { anything: 'goes' },
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:user': {} } } }],
      },
      spec: { user: 'carol', extra: { scopes: ['a', 'b'] } },
      status: { allowed: true },
    };
    const before = structuredClone(body);
    expect(dropUndeclaredFields('authorization.k8s.io/v1', 'SubjectAccessReview', body)).toEqual([]);
    expect(body).toEqual(before);
    expect(dropUndeclaredFields('autoscaling/v1', 'Scale', { spec: { replicas: 2, replica: 3 }, status: { selector: 'a=b' } })).toEqual([
      'spec.replica',
    ]);
    expect(dropUndeclaredFields('authentication.k8s.io/v1', 'TokenReview', { spec: { token: 't', audience: 'x' } })).toEqual([
      'spec.audience',
    ]);
  });

  it('knows nothing of kinds the codec does not model', () => {
    expect(dropUndeclaredFields('example.kapi.dev/v1', 'Widget', { spec: { anything: 1 } })).toBeUndefined();
  });
});

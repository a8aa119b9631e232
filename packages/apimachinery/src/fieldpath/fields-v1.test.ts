// Cases from structured-merge-diff's fieldpath/serialize_test.go (testdata/serialize.json holds its tables as
// they are), and FieldsV1 as kube writes it for a Deployment.
import { describe, expect, it } from 'vitest';
import { fieldSetFromFieldsV1, fieldSetFromFieldsV1Json, fieldSetToFieldsV1, fieldSetToFieldsV1Json } from './fields-v1.ts';
import { makePath as P } from './path.ts';
import { keyElement as K, valueElement as V } from './path-element.ts';
import { FieldSet } from './set.ts';
import smd from './testdata/serialize.json' with { type: 'json' };

/** Both encoders, which must agree byte for byte. */
function encode(set: FieldSet): string {
  const text = fieldSetToFieldsV1Json(set);
  expect(JSON.stringify(fieldSetToFieldsV1(set))).toBe(text);
  return text;
}

describe('FieldsV1 (serialize_test.go)', () => {
  it.each(smd.golden.map((s, i) => [i, s] as const))('golden data %i round-trips byte for byte', (_i, text) => {
    expect(encode(fieldSetFromFieldsV1Json(text))).toBe(text);
  });

  it.each(smd.nonNormalized.map((c, i) => [i, c] as const))('non-normalized input %i decodes to the normalized set', (_i, c) => {
    const nonNorm = fieldSetFromFieldsV1Json(c.input);
    const norm = fieldSetFromFieldsV1Json(c.normalized);
    expect(encode(nonNorm)).toBe(c.normalized);
    expect(nonNorm.equals(norm)).toBe(true);
  });

  it.each(smd.tokenErrors)('rejects %s', (_name, text) => {
    expect(() => fieldSetFromFieldsV1Json(text)).toThrow(Error);
  });

  it.each(smd.accepted)('accepts %s', (_name, text) => {
    expect(() => fieldSetFromFieldsV1Json(text)).not.toThrow();
  });

  it('null is the empty set', () => {
    expect(fieldSetFromFieldsV1Json('null').isEmpty()).toBe(true);
    expect(fieldSetFromFieldsV1(null).isEmpty()).toBe(true);
    expect(encode(FieldSet.empty())).toBe('{}');
  });

  it('TestDropUnknown: keys of unknown kinds are dropped', () => {
    expect(encode(fieldSetFromFieldsV1Json('{"f:aaa":{},"r:aab":{}}'))).toBe('{"f:aaa":{}}');
  });

  it('an undefined member is absent, as in the JSON of the object', () => {
    const withUndefined = fieldSetFromFieldsV1({ 'f:a': {}, 'f:b': undefined, 'f:c': { '.': undefined, 'f:d': {} } });
    expect(withUndefined.equals(fieldSetFromFieldsV1({ 'f:a': {}, 'f:c': { 'f:d': {} } }))).toBe(true);
  });

  it('errors say which key is wrong', () => {
    expect(() => fieldSetFromFieldsV1({ 'f:a': { xy: {} } })).toThrow(
      'managedFields parsing: parsing key as path element: missing colon: xy',
    );
    expect(() => fieldSetFromFieldsV1({ 'f:a': [] })).toThrow('the value of "f:a" must be an object');
    expect(() => fieldSetFromFieldsV1([])).toThrow('expected a JSON object');
  });

  it('a null value marks a member, as SMD reads it', () => {
    expect(fieldSetFromFieldsV1({ 'f:a': null }).equals(FieldSet.fromPaths([P('a')]))).toBe(true);
  });
});

describe('FieldsV1 as kube writes it', () => {
  // metadata.managedFields[].fieldsV1 of a Deployment created by `kubectl apply` (client-side) and updated by the
  // deployment controller, as kube-apiserver returns them.
  const kubectl =
    '{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}';
  const controller =
    '{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Progressing\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}';

  it.each([
    ['kubectl-client-side-apply', kubectl],
    ['kube-controller-manager', controller],
  ])('%s round-trips byte for byte', (_name, text) => {
    expect(encode(fieldSetFromFieldsV1Json(text))).toBe(text);
  });

  it('a set built from paths encodes as kube does', () => {
    const c = K({ name: 'nginx' });
    const set = FieldSet.fromPaths([
      P('spec', 'template', 'spec', 'containers', c, 'ports', K({ protocol: 'TCP', containerPort: 80 }), 'protocol'),
      P('spec', 'template', 'spec', 'containers', c, 'ports', K({ protocol: 'TCP', containerPort: 80 })),
      P('spec', 'template', 'spec', 'containers', c, 'name'),
      P('spec', 'template', 'spec', 'containers', c),
      P('metadata', 'finalizers', V('example.com/f')),
      P('spec', 'args', 0),
    ]);
    expect(encode(set)).toBe(
      '{"f:metadata":{"f:finalizers":{"v:\\"example.com/f\\"":{}}},"f:spec":{"f:args":{"i:0":{}},"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:protocol":{}}}}}}}}}',
    );
  });

  it('the union of both managers’ sets holds each one', () => {
    const a = fieldSetFromFieldsV1Json(kubectl);
    const b = fieldSetFromFieldsV1Json(controller);
    const u = a.union(b);
    expect(u.size()).toBe(a.size() + b.size());
    expect(u.difference(b).equals(a)).toBe(true);
    expect(u.intersection(a).equals(a)).toBe(true);
  });
});

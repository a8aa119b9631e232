import { fieldErrorMessage, nameIsDNSLabel } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { finalizerWarnings, validateObjectMeta } from './validate-object-meta.ts';

const messages = (metadata: unknown, namespaced = true) => validateObjectMeta(metadata, { namespaced }).map(fieldErrorMessage);

describe('validateObjectMeta', () => {
  it('accepts valid metadata', () => {
    expect(
      validateObjectMeta(
        {
          name: 'w1.example',
          namespace: 'default',
          labels: { 'app.kubernetes.io/name': 'w', tier: '' },
          annotations: { 'Example.com/Note': 'x' },
          finalizers: ['example.com/cleanup'],
        },
        { namespaced: true },
      ),
    ).toEqual([]);
  });

  it('requires a name', () => {
    expect(messages({ namespace: 'default' })).toEqual(['metadata.name: Required value: name or generateName is required']);
    expect(messages(undefined, false)).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  it('validates name and generateName as DNS-1123 subdomains', () => {
    expect(messages({ name: 'My_Widget', namespace: 'default' })).toEqual([
      `metadata.name: Invalid value: "My_Widget": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    expect(messages({ name: 'w-abcde', generateName: 'w-', namespace: 'default' })).toEqual([]);
    expect(messages({ name: 'w', generateName: 'Wx-', namespace: 'default' })[0]).toMatch(
      /^metadata.generateName: Invalid value: "Wx-": a lowercase RFC 1123 subdomain/,
    );
  });

  it('takes another name rule', () => {
    expect(validateObjectMeta({ name: 'a.b' }, { namespaced: false, validateName: nameIsDNSLabel }).map(fieldErrorMessage)).toEqual([
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
  });

  it('requires a namespace exactly when the kind is namespaced', () => {
    expect(messages({ name: 'w' })).toEqual(['metadata.namespace: Required value']);
    expect(messages({ name: 'w', namespace: 'Default' })[0]).toMatch(
      /^metadata.namespace: Invalid value: "Default": a lowercase RFC 1123 label/,
    );
    expect(messages({ name: 'w', namespace: 'default' }, false)).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
  });

  it('validates label keys and values on metadata.labels', () => {
    expect(messages({ name: 'w', namespace: 'd', labels: { 'bad key': 'ok', good: 'bad value' } })).toEqual([
      `metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
    expect(messages({ name: 'w', namespace: 'd', labels: { a: 'x'.repeat(64) } })[0]).toMatch(
      /^metadata.labels: Invalid value: "x+": must be no more than 63 characters$/,
    );
    expect(messages({ name: 'w', namespace: 'd', labels: { a: 1 } })).toEqual([
      'metadata.labels: Invalid value: {"a":1}: must be a map of string keys to string values',
    ]);
  });

  it('validates annotation keys and total size', () => {
    expect(messages({ name: 'w', namespace: 'd', annotations: { '-x': 'v' } })[0]).toMatch(
      /^metadata.annotations: Invalid value: "-x": name part must consist/,
    );
    expect(messages({ name: 'w', namespace: 'd', annotations: { a: 'x'.repeat(256 * 1024) } })).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  it('validates finalizers and generation', () => {
    expect(messages({ name: 'w', namespace: 'd', finalizers: ['a/b/c'] })[0]).toMatch(
      /^metadata.finalizers: Invalid value: "a\/b\/c": a qualified name/,
    );
    expect(messages({ name: 'w', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] })).toEqual([
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
    expect(messages({ name: 'w', namespace: 'd', generation: -1 })).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('reports integer and string fields of other types', () => {
    expect(messages({ name: 'w', namespace: 'd', generation: 'x', deletionGracePeriodSeconds: 1.5, selfLink: 5 })).toEqual([
      'metadata.generation: Invalid value: "x": must be an integer',
      'metadata.deletionGracePeriodSeconds: Invalid value: 1.5: must be an integer',
      'metadata.selfLink: Invalid value: 5: must be a string',
    ]);
  });

  it('reports managedFields entries Go clients could not decode', () => {
    const entry = {
      manager: 'm',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    };
    expect(messages({ name: 'w', namespace: 'd', managedFields: [entry, { ...entry, subresource: 'status' }] })).toEqual([]);
    expect(
      messages({
        name: 'w',
        namespace: 'd',
        // fieldsV1 is raw JSON to Go (any value decodes), and null decodes as an empty entry.
        managedFields: [{ ...entry, manager: 5, subresource: 5, time: 'garbage', fieldsV1: 'x' }, 'x', null],
      }),
    ).toEqual([
      'metadata.managedFields[0].manager: Invalid value: 5: must be a string',
      'metadata.managedFields[0].subresource: Invalid value: 5: must be a string',
      'metadata.managedFields[0].time: Invalid value: "garbage": parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
      'metadata.managedFields[1]: Invalid value: "x": must be an object',
    ]);
    expect(messages({ name: 'w', namespace: 'd', managedFields: 'x' })).toEqual([
      'metadata.managedFields: Invalid value: "x": must be a list of objects',
    ]);
  });

  it('reports wrong types', () => {
    expect(messages('x')).toEqual([
      'metadata: Invalid value: "x": must be an object',
      'metadata.name: Required value: name or generateName is required',
      'metadata.namespace: Required value',
    ]);
    expect(messages({ name: 5, namespace: 'd' })).toEqual([
      'metadata.name: Invalid value: 5: must be a string',
      'metadata.name: Required value: name or generateName is required',
    ]);
  });

  describe('ownerReferences', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1' };
    const withRefs = (ownerReferences: unknown) => messages({ name: 'w', namespace: 'd', ownerReferences });

    it('accepts complete references, one of them the controller', () => {
      expect(
        withRefs([
          { ...ref, controller: true, blockOwnerDeletion: true },
          { ...ref, name: 'other', uid: 'u2', controller: false },
        ]),
      ).toEqual([]);
      expect(withRefs([{ ...ref, apiVersion: 'v1', kind: 'ConfigMap' }])).toEqual([]);
    });

    it('requires apiVersion with a version, kind, name and uid, reported on the list path as kube does', () => {
      expect(withRefs([{}])).toEqual([
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ]);
      expect(withRefs([ref, { ...ref, uid: '' }])).toEqual(['metadata.ownerReferences.uid: Invalid value: "": must not be empty']);
      // More than one '/' does not parse, "apps/" has no version; "/v1" is the core group's v1.
      expect(withRefs([{ ...ref, apiVersion: 'a/b/c' }])).toEqual([
        'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
      ]);
      expect(withRefs([{ ...ref, apiVersion: 'apps/' }])).toEqual([
        'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
      ]);
      expect(withRefs([{ ...ref, apiVersion: '/v1' }])).toEqual([]);
    });

    it('does not check the owner name beyond being set', () => {
      expect(withRefs([{ ...ref, name: 'Not_A/DNS name' }])).toEqual([]);
    });

    it('refuses an Event as owner', () => {
      expect(withRefs([{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u1' }])).toEqual([
        'metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u1"}: /v1, Kind=Event is disallowed from being an owner',
      ]);
      expect(withRefs([{ apiVersion: 'events.k8s.io/v1', kind: 'Event', name: 'e', uid: 'u1' }])).toEqual([]);
    });

    it('allows only one controller', () => {
      const refs = [
        { ...ref, controller: true },
        { ...ref, kind: 'ReplicaSet', name: 'rs', uid: 'u2', controller: true },
        { ...ref, kind: 'StatefulSet', name: 'ss', uid: 'u3', controller: true },
      ];
      const list = JSON.stringify(refs);
      expect(withRefs(refs)).toEqual([
        `metadata.ownerReferences: Invalid value: ${list}: Only one reference can have Controller set to true. Found "true" in references for Deployment/web and ReplicaSet/rs`,
        `metadata.ownerReferences: Invalid value: ${list}: Only one reference can have Controller set to true. Found "true" in references for Deployment/web and StatefulSet/ss`,
      ]);
    });

    it('reports wrong types', () => {
      expect(withRefs('x')).toEqual(['metadata.ownerReferences: Invalid value: "x": must be a list of objects']);
      expect(withRefs([{ ...ref, uid: 5, controller: 'yes' }])).toEqual([
        'metadata.ownerReferences[0].uid: Invalid value: 5: must be a string',
        'metadata.ownerReferences[0].controller: Invalid value: "yes": must be a boolean',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ]);
    });
  });
});

describe('finalizerWarnings', () => {
  const withFinalizers = (finalizers?: unknown) => ({ metadata: { finalizers } });

  it('warns of added finalizers without a domain, sorted, standard names excepted', () => {
    expect(
      finalizerWarnings(withFinalizers(['zeta', 'kubernetes', 'orphan', 'foregroundDeletion', 'example.com/ok', 'cleanup']), undefined),
    ).toEqual([
      'metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
      'metadata.finalizers: "zeta": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
    ]);
  });

  it('asks for a path when the name is a domain already', () => {
    expect(finalizerWarnings(withFinalizers(['finalizers.example.com']), undefined)).toEqual([
      'metadata.finalizers: "finalizers.example.com": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
    ]);
  });

  it('warns only of finalizers the update adds, once each', () => {
    expect(finalizerWarnings(withFinalizers(['old', 'new', 'new']), withFinalizers(['old']))).toEqual([
      'metadata.finalizers: "new": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
    ]);
    expect(finalizerWarnings(withFinalizers(['old']), withFinalizers(['old']))).toEqual([]);
    expect(finalizerWarnings(withFinalizers(undefined), undefined)).toEqual([]);
  });

  it('repeats qualified-name problems as warnings', () => {
    expect(finalizerWarnings(withFinalizers(['-bad']), undefined)).toEqual([
      `metadata.finalizers: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'metadata.finalizers: "-bad": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
    ]);
  });
});

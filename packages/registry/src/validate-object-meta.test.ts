import { fieldErrorMessage, nameIsDNSLabel } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { validateObjectMeta } from './validate-object-meta.ts';

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
});

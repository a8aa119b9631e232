import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { validateEmbeddedResources } from './embedded-object-meta.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';

const embedded: JSONSchemaProps = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };
const schema = newStructural({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        template: embedded,
        list: { type: 'array', items: embedded },
        map: { type: 'object', additionalProperties: embedded },
      },
    },
  },
});
const check = (obj: unknown, isResourceRoot = false): string[] =>
  validateEmbeddedResources('', obj, schema, isResourceRoot).map(fieldErrorMessage);

// kube's schema/objectmeta/validation.go Validate.
describe('validateEmbeddedResources', () => {
  it('accepts embedded objects with apiVersion, kind and valid metadata, in properties, items and map values', () => {
    const ok = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } } };
    expect(check({ spec: { template: ok, list: [ok, { apiVersion: 'v1', kind: 'Pod' }], map: { a: ok } } })).toEqual([]);
  });

  it('requires apiVersion and kind, but not metadata nor a name', () => {
    expect(
      check({
        spec: { template: { metadata: {} }, list: [{ kind: 'Pod', metadata: { generateName: 'p-' } }], map: { a: { apiVersion: 'v1' } } },
      }),
    ).toEqual([
      'spec.template.apiVersion: Required value',
      'spec.template.kind: Required value',
      'spec.list[0].apiVersion: Required value',
      'spec.map[a].kind: Required value',
    ]);
  });

  it("refuses apiVersion and kind that are not strings, empty or malformed, with kube's words", () => {
    expect(check({ spec: { template: { apiVersion: 1, kind: true } } })).toEqual([
      'spec.template.apiVersion: Invalid value: 1: must be a string',
      'spec.template.kind: Invalid value: true: must be a string',
    ]);
    expect(check({ spec: { template: { apiVersion: '', kind: '' } } })).toEqual([
      'spec.template.apiVersion: Required value',
      'spec.template.kind: Required value',
    ]);
    expect(check({ spec: { template: { apiVersion: 'a/b/c', kind: '9Lives' } } })).toEqual([
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      `spec.template.kind: Invalid value: "9Lives": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  it('kind may have mixed case', () => {
    expect(check({ spec: { template: { apiVersion: 'v1', kind: 'ConfigMap' } } })).toEqual([]);
  });

  it('validates metadata as ObjectMeta with path-segment names, under the embedded object path', () => {
    expect(
      check({
        spec: {
          template: {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: '..', generateName: 'a%', namespace: 'Bad_NS', labels: { 'a b': 'c' } },
          },
        },
      }),
    ).toEqual([
      `spec.template.metadata.generateName: Invalid value: "a%": may not contain '%'`,
      `spec.template.metadata.name: Invalid value: "..": may not be '..'`,
      `spec.template.metadata.namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `spec.template.metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('a wrongly typed metadata field is reported alone, as kube reports its ObjectMeta decoding error', () => {
    expect(check({ spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 42, namespace: 'Bad_NS' } } } })).toEqual([
      'spec.template.metadata.name: Invalid value: 42: must be a string',
    ]);
  });

  it('the resource root is checked only when asked', () => {
    expect(check({ spec: {} })).toEqual([]);
    expect(check({ spec: {} }, true)).toEqual(['apiVersion: Required value', 'kind: Required value']);
  });

  it('fields the schema does not specify are not looked into', () => {
    expect(check({ other: { kind: 1 }, spec: { other: { apiVersion: 2 } } })).toEqual([]);
  });
});

import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import type { ResourceDefinition } from '../resource-definition.ts';
import { decodeBody } from './decode.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z.object({
      replicas: z.int().min(0),
      color: z.string().default('blue'),
      ports: z.array(z.object({ port: z.int(), hostPort: z.int().optional() })).optional(),
    }),
  }),
}) as unknown as ResourceDefinition;

const PREFIX = 'Widget in version "v1" cannot be handled as a Widget';

/** Duplicates (spec.replicas, spec.ports[0].hostPort, metadata.name) and unknown fields (spec.foo, metadata.bar). */
const BODY = `{
  "apiVersion": "example.kapi.dev/v1", "kind": "Widget",
  "metadata": {"name": "a", "name": "w1", "bar": 1},
  "spec": {"replicas": 1, "foo": true, "replicas": 3, "ports": [{"port": 80, "hostPort": 1, "hostPort": 2}]}
}`;

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

describe('decodeBody with a raw JSON body', () => {
  it('Strict: one 400 listing duplicates (decoder order) then unknown fields, in kube wording', () => {
    const err = failure(() => decodeBody(Widget, BODY, 'Strict'));
    expect(err.code).toBe(400);
    expect(err.status.reason).toBe('BadRequest');
    expect(err.message).toBe(
      `${PREFIX}: strict decoding error: duplicate field "metadata.name", duplicate field "spec.replicas", ` +
        'duplicate field "spec.ports[0].hostPort", unknown field "metadata.bar", unknown field "spec.foo"',
    );
  });

  it('Strict: duplicates alone are enough to refuse the body', () => {
    const err = failure(() => decodeBody(Widget, '{"metadata":{"name":"w"},"spec":{"replicas":1,"replicas":1}}', 'Strict'));
    expect(err.message).toBe(`${PREFIX}: strict decoding error: duplicate field "spec.replicas"`);
  });

  it('Warn (the default): one warning each, the last duplicate wins, unknown fields are pruned, defaults applied', () => {
    for (const d of [decodeBody(Widget, BODY, 'Warn'), decodeBody(Widget, BODY)]) {
      expect(d.warnings).toEqual([
        'duplicate field "metadata.name"',
        'duplicate field "spec.replicas"',
        'duplicate field "spec.ports[0].hostPort"',
        'unknown field "metadata.bar"',
        'unknown field "spec.foo"',
      ]);
      expect(d.object).toEqual({
        apiVersion: 'example.kapi.dev/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { replicas: 3, color: 'blue', ports: [{ port: 80, hostPort: 2 }] },
      });
    }
  });

  it('Ignore: no warnings, same object', () => {
    const d = decodeBody(Widget, BODY, 'Ignore');
    expect(d.warnings).toEqual([]);
    expect(d.object.spec).toEqual({ replicas: 3, color: 'blue', ports: [{ port: 80, hostPort: 2 }] });
  });

  it('takes the body as UTF-8 bytes too', () => {
    const d = decodeBody(Widget, new TextEncoder().encode(BODY), 'Warn');
    expect(d.warnings).toHaveLength(5);
    expect(d.object.metadata.name).toBe('w1');
    const err = failure(() => decodeBody(Widget, new TextEncoder().encode(BODY), 'Strict'));
    expect(err.message).toContain('duplicate field "spec.ports[0].hostPort"');
  });

  it('a clean raw body decodes as its object form does', () => {
    const obj = { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 2 } };
    expect(decodeBody(Widget, JSON.stringify(obj), 'Strict')).toEqual(decodeBody(Widget, obj, 'Strict'));
  });

  it('malformed JSON is a 400 saying it could not be parsed', () => {
    for (const bad of ['{"spec":', '', new Uint8Array([0x7b])]) {
      const err = failure(() => decodeBody(Widget, bad, 'Ignore'));
      expect(err.code).toBe(400);
      expect(err.message).toMatch(new RegExp(`^${PREFIX}: json parse error: .`));
    }
  });

  it('raw JSON that is not an object is refused as an object body is', () => {
    for (const bad of ['[]', '42', '"x"', 'null', '{"metadata":[]}']) {
      expect(failure(() => decodeBody(Widget, bad)).message).toBe(`${PREFIX}: the body must be a JSON object`);
    }
  });

  it('an object body cannot carry duplicates: only unknown fields are reported', () => {
    const d = decodeBody(Widget, { metadata: { name: 'w' }, spec: { replicas: 1, foo: 1 } });
    expect(d.warnings).toEqual(['unknown field "spec.foo"']);
  });

  it("names and drops unknown fields in ObjectMeta's list items, as kube's strict decoding of ObjectMeta does", () => {
    const entry = {
      manager: 'm',
      operation: 'Update',
      apiVersion: 'example.kapi.dev/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': {} },
    };
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1' };
    const body = {
      metadata: {
        name: 'w',
        managedFields: [entry, { ...entry, manager: 'n', foo: 1 }],
        ownerReferences: [{ ...owner, bar: true, baz: 2 }],
      },
      spec: { replicas: 1 },
    };
    const paths = ['metadata.managedFields[1].foo', 'metadata.ownerReferences[0].bar', 'metadata.ownerReferences[0].baz'];
    const d = decodeBody(Widget, body);
    expect(d.warnings).toEqual(paths.map((p) => `unknown field "${p}"`));
    expect(d.object.metadata.managedFields).toEqual([entry, { ...entry, manager: 'n' }]);
    expect(d.object.metadata.ownerReferences).toEqual([owner]);
    // The caller's own entries are not changed, and the entries without unknown fields are kept as they are.
    expect(body.metadata.managedFields[1]).toHaveProperty('foo', 1);
    expect(d.object.metadata.managedFields?.[0]).toBe(entry);
    expect(failure(() => decodeBody(Widget, JSON.stringify(body), 'Strict')).message).toBe(
      `${PREFIX}: strict decoding error: ${paths.map((p) => `unknown field "${p}"`).join(', ')}`,
    );
    // fieldsV1 is the raw set of fields, not checked.
    expect(decodeBody(Widget, { metadata: { name: 'w', managedFields: [entry] }, spec: { replicas: 1 } }).warnings).toEqual([]);
  });
});

import { type KubeObject, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigMap } from '../builtins/configmap.ts';
import { defineResource } from '../define-resource.ts';
import { Store } from './store.ts';
import type { PatchType } from './types.ts';

// Keys named after Object.prototype's members are data: kube-apiserver (Go) stores them like any other key.

const ctx = { namespace: 'default' };
const ODD = '{"__proto__":"x","constructor":"y","prototype":"z","toString":"t","hasOwnProperty":"h"}';

/** A custom kind whose spec keeps what it is given (x-kubernetes-preserve-unknown-fields) beside a map of strings. */
const Thing = defineResource({
  group: 'example.kapi.dev',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z.looseObject({ labels: z.record(z.string(), z.string()).optional(), size: z.int().optional() }).optional(),
  }),
});

async function statusOf(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

function configMapStore() {
  return new Store(ConfigMap, { storage: new MemoryStorage() });
}

describe('keys __proto__, constructor and prototype', () => {
  it('a ConfigMap created from a raw body keeps every such key of data, in order', async () => {
    const store = configMapStore();
    const created = await store.create(ctx, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":${ODD}}`);
    expect(JSON.stringify(created.object.data)).toBe(ODD);
    expect(JSON.stringify((await store.get(ctx, 'a')).data)).toBe(ODD);
    expect(Object.getPrototypeOf((await store.get(ctx, 'a')).data)).toBe(Object.prototype);
  });

  it('so does one created from an object (YAML and protobuf bodies arrive decoded)', async () => {
    const store = configMapStore();
    const created = await store.create(ctx, JSON.parse(`{"metadata":{"name":"a"},"data":${ODD}}`) as KubeObject);
    expect(JSON.stringify(created.object.data)).toBe(ODD);
    const binary = await store.create(ctx, JSON.parse('{"metadata":{"name":"b"},"binaryData":{"__proto__":"eA=="}}') as KubeObject);
    expect(JSON.stringify(binary.object.binaryData)).toBe('{"__proto__":"eA=="}');
  });

  it('a "__proto__" key is validated like any other key', async () => {
    const store = configMapStore();
    const err = await statusOf(store.create(ctx, '{"metadata":{"name":"a"},"data":{"__proto__":5}}'));
    expect(err.status.code).toBe(422);
    expect(err.status.details?.causes).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'data[__proto__]', message: expect.stringMatching(/must be of type string/) },
    ]);
    const bad = await statusOf(store.create(ctx, '{"metadata":{"name":"b"},"binaryData":{"__proto__":"!"}}'));
    expect(bad.status.code).toBe(422);
    expect(bad.status.details?.causes?.[0]?.field).toBe('binaryData[__proto__]');
  });

  it('merge, strategic and JSON patches naming them apply as data and never answer 500', async () => {
    const store = configMapStore();
    await store.create(ctx, '{"metadata":{"name":"a"},"data":{"k":"v"}}');
    const cases: [PatchType, unknown, string][] = [
      ['merge', { constructor: { prototype: { a: 1 } } }, '{"k":"v"}'],
      ['merge', JSON.parse('{"__proto__":{"a":1}}'), '{"k":"v"}'],
      ['strategic', JSON.parse('{"__proto__":{"a":1},"constructor":{"prototype":1}}'), '{"k":"v"}'],
      ['strategic', JSON.parse('{"metadata":{"__proto__":{"a":1}}}'), '{"k":"v"}'],
      ['merge', JSON.parse('{"data":{"__proto__":"p"}}'), '{"k":"v","__proto__":"p"}'],
      ['strategic', JSON.parse('{"data":{"constructor":"c","__proto__":null}}'), '{"k":"v","constructor":"c"}'],
      [
        'strategic',
        JSON.parse('{"data":{"$retainKeys":["constructor","__proto__"],"__proto__":"q"}}'),
        '{"constructor":"c","__proto__":"q"}',
      ],
      ['json', [{ op: 'add', path: '/data/prototype', value: 'r' }], '{"constructor":"c","__proto__":"q","prototype":"r"}'],
      ['json', [{ op: 'move', from: '/data/__proto__', path: '/data/toString' }], '{"constructor":"c","prototype":"r","toString":"q"}'],
      ['json', [{ op: 'add', path: '/constructor', value: { prototype: { a: 1 } } }], '{"constructor":"c","prototype":"r","toString":"q"}'],
    ];
    for (const [type, patch, data] of cases) {
      const res = await store.patch(ctx, 'a', patch, type);
      expect(JSON.stringify(res.object.data), `${type} ${JSON.stringify(patch)}`).toBe(data);
    }
    expect(({} as Record<string, unknown>).a).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('a');
  });

  it('a strategic merge patch directive inside a "__proto__" key of a custom resource applies there', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage() });
    const spec = '{"__proto__":{"constructor":{"prototype":[1]}},"labels":{"__proto__":"l","prototype":"p"}}';
    await store.create(ctx, `{"metadata":{"name":"t"},"spec":${spec}}`);
    expect(JSON.stringify((await store.get(ctx, 't')).spec)).toBe(spec);
    const res = await store.patch(
      ctx,
      't',
      JSON.parse('{"spec":{"__proto__":{"$patch":"replace","b":2},"labels":{"__proto__":null}}}'),
      'strategic',
    );
    expect(JSON.stringify(res.object.spec)).toBe('{"__proto__":{"b":2},"labels":{"prototype":"p"}}');
    const err = await statusOf(store.patch(ctx, 't', JSON.parse('{"spec":{"labels":{"__proto__":7}}}'), 'merge'));
    expect(err.status.code).toBe(422);
    expect(err.status.details?.causes?.[0]?.field).toBe('spec.labels[__proto__]');
    // Refused: the stored object is as it was.
    expect(JSON.stringify(await store.get(ctx, 't'))).toBe(JSON.stringify(res.object));
  });

  it('unknown fields named like prototype members are reported and pruned as unknown fields', async () => {
    const store = configMapStore();
    const res = await store.create(ctx, '{"metadata":{"name":"a","constructor":1},"__proto__":{"x":1},"toString":2,"data":{"k":"v"}}');
    expect([...res.warnings].sort()).toEqual([
      'unknown field "__proto__"',
      'unknown field "metadata.constructor"',
      'unknown field "toString"',
    ]);
    expect(Object.keys(res.object)).toEqual(['apiVersion', 'kind', 'metadata', 'data']);
    const strict = await statusOf(store.create(ctx, '{"metadata":{"name":"b"},"constructor":{}}', { fieldValidation: 'Strict' }));
    expect(strict.status).toMatchObject({ code: 400, message: expect.stringContaining('unknown field "constructor"') });
  });

  it('a kind may declare fields named constructor or toString: left out they are absent, sent they are stored', async () => {
    const Car = defineResource({
      group: 'example.kapi.dev',
      kind: 'Car',
      plural: 'cars',
      namespaced: true,
      versions: [{ name: 'v1' }],
      schema: z.object({ spec: z.object({ constructor: z.string().optional(), toString: z.int().optional() }) }),
    });
    const store = new Store(Car, { storage: new MemoryStorage() });
    const bare = await store.create(ctx, '{"metadata":{"name":"a"},"spec":{}}');
    expect(JSON.stringify(bare.object.spec)).toBe('{}');
    const full = await store.create(ctx, '{"metadata":{"name":"b"},"spec":{"constructor":"Ferrari","toString":1}}');
    expect(JSON.stringify(full.object.spec)).toBe('{"constructor":"Ferrari","toString":1}');
    const wrong = await statusOf(store.create(ctx, '{"metadata":{"name":"c"},"spec":{"toString":"x"}}'));
    expect(wrong.status.details?.causes?.[0]?.field).toBe('spec.toString');
  });
});

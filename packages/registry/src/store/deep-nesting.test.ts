import { type KubeObject, MAX_JSON_DEPTH, StatusError, stringifyJson } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigMap } from '../builtins/configmap.ts';
import { defineResource } from '../define-resource.ts';
import { Store } from './store.ts';

// kube-apiserver's decoder refuses JSON nested deeper than 10,000 levels (400); everything shallower must be handled
// by every walk after it (validation, pruning, copies, patches) without running out of stack.

const ctx = { namespace: 'default' };
/** `{"a":{"a":…{}…}}`: `depth` levels of objects. */
const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

const Thing = defineResource({
  group: 'example.kapi.dev',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({ spec: z.looseObject({ size: z.int().optional() }).optional() }),
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

describe('deep nesting', () => {
  it('metadata.annotations nesting 50,000 objects is a 400, as a raw body or as a decoded one', async () => {
    const store = new Store(ConfigMap, { storage: new MemoryStorage() });
    const text = `{"metadata":{"name":"a","annotations":${nested(50_000)}}}`;
    const raw = await statusOf(store.create(ctx, text));
    expect(raw.status).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(raw.message).toMatch(/exceeded max depth/);
    const decoded = await statusOf(store.create(ctx, JSON.parse(text) as KubeObject));
    expect(decoded.status).toMatchObject({ code: 400, reason: 'BadRequest' });
    await store.create(ctx, '{"metadata":{"name":"a"}}');
    for (const [type, patch] of [
      ['merge', JSON.parse(`{"metadata":{"annotations":${nested(50_000)}}}`)],
      ['strategic', JSON.parse(`{"metadata":{"annotations":${nested(50_000)}}}`)],
      ['json', [{ op: 'add', path: '/metadata/annotations', value: JSON.parse(nested(50_000)) }]],
    ] as const) {
      const err = await statusOf(store.patch(ctx, 'a', patch, type));
      expect(err.status, type).toMatchObject({ code: 400, message: 'the patch nests deeper than 10000 levels: exceeded max depth' });
    }
  });

  it('annotations nesting a few levels are a 422 (annotation values are strings), not a crash', async () => {
    const store = new Store(ConfigMap, { storage: new MemoryStorage() });
    const err = await statusOf(store.create(ctx, `{"metadata":{"name":"a","annotations":{"k":${nested(9_000)}}}}`));
    expect(err.status.code).toBe(422);
  });

  it('a custom resource field nesting 9,999 levels passes decode, validation, pruning, copies and all three patches', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage() });
    // The body is 10,000 levels deep: the object, spec, then 9,998 more.
    const spec = nested(MAX_JSON_DEPTH - 1);
    const body = `{"metadata":{"name":"t"},"spec":${spec}}`;
    const created = await store.create(ctx, body, { dryRun: true });
    expect(stringifyJson(created.object.spec)).toBe(spec);
    const fromObject = await store.create(ctx, JSON.parse(body) as KubeObject, { dryRun: true });
    expect(stringifyJson(fromObject.object.spec)).toBe(spec);
    // Patches of a shallow stored object that make it (or arrive) that deep.
    await store.create(ctx, '{"metadata":{"name":"t"},"spec":{"size":1}}');
    const deepSpec = JSON.parse(spec) as Record<string, unknown>;
    // A JSON patch body nests two levels above its value (the list, the operation).
    const shallower = nested(MAX_JSON_DEPTH - 3);
    for (const [type, patch, want] of [
      ['merge', { spec: deepSpec }, spec.replace('{"a"', '{"size":1,"a"')],
      ['strategic', { spec: deepSpec }, spec.replace('{"a"', '{"size":1,"a"')],
      ['json', [{ op: 'replace', path: '/spec', value: JSON.parse(shallower) }], shallower],
    ] as const) {
      const res = await store.patch(ctx, 't', patch, type, { dryRun: true });
      expect(stringifyJson(res.object.spec), type).toBe(want);
    }
    const updated = await store.update(ctx, 't', { ...(await store.get(ctx, 't')), spec: deepSpec }, { dryRun: true });
    expect(stringifyJson(updated.object.spec)).toBe(spec);
  });

  it('one level more is a 400', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage() });
    const err = await statusOf(store.create(ctx, `{"metadata":{"name":"t"},"spec":${nested(MAX_JSON_DEPTH)}}`));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

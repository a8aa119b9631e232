import { type KubeObject, MAX_JSON_DEPTH, StatusError, stringifyJson, type WatchEvent } from '@kapi/apimachinery';
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

  it('a custom resource field nesting 9,999 levels is created, read, listed, watched, patched and updated', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage() });
    const events = store.watch(ctx)[Symbol.asyncIterator]();
    // The body is 10,000 levels deep: the object, spec, then 9,998 more.
    const spec = nested(MAX_JSON_DEPTH - 1);
    const body = `{"metadata":{"name":"t"},"spec":${spec}}`;
    const created = await store.create(ctx, body);
    expect(stringifyJson(created.object.spec)).toBe(spec);
    expect(stringifyJson((await store.get(ctx, 't')).spec)).toBe(spec);
    expect((await store.list(ctx)).items.map((o) => stringifyJson(o.spec))).toEqual([spec]);
    const added = (await events.next()).value as WatchEvent;
    expect(added.type).toBe('ADDED');
    expect(stringifyJson((added.object as { spec?: unknown }).spec)).toBe(spec);
    const fromObject = await store.create(ctx, { ...(JSON.parse(body) as KubeObject), metadata: { name: 'u' } });
    expect(stringifyJson(fromObject.object.spec)).toBe(spec);
    // Patches of a shallow stored object that make it (or arrive) that deep.
    await store.create(ctx, '{"metadata":{"name":"s"},"spec":{"size":1}}');
    const deepSpec = JSON.parse(spec) as Record<string, unknown>;
    // A JSON patch body nests two levels above its value (the list, the operation).
    const shallower = nested(MAX_JSON_DEPTH - 3);
    for (const [type, patch, want] of [
      ['merge', { spec: deepSpec }, spec.replace('{"a"', '{"size":1,"a"')],
      ['strategic', { spec: deepSpec }, spec.replace('{"a"', '{"size":1,"a"')],
      ['json', [{ op: 'replace', path: '/spec', value: JSON.parse(shallower) }], shallower],
    ] as const) {
      const res = await store.patch(ctx, 's', patch, type);
      expect(stringifyJson(res.object.spec), type).toBe(want);
      expect(stringifyJson((await store.get(ctx, 's')).spec), type).toBe(want);
    }
    // The deep object patched and updated in place (a change at the top, then at the bottom).
    const patched = await store.patch(ctx, 't', { spec: { size: 2 } }, 'merge');
    const { size, ...unpatched } = patched.object.spec as Record<string, unknown>;
    expect(size).toBe(2);
    expect(stringifyJson(unpatched)).toBe(spec);
    const bottom = `${'{"a":'.repeat(MAX_JSON_DEPTH - 2)}{"n":1}${'}'.repeat(MAX_JSON_DEPTH - 2)}`;
    const updated = await store.update(ctx, 't', { ...(await store.get(ctx, 't')), spec: JSON.parse(bottom) });
    expect(stringifyJson(updated.object.spec)).toBe(bottom);
    expect(stringifyJson((await store.get(ctx, 't')).spec)).toBe(bottom);
  });

  it('one level more is a 400', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage() });
    const err = await statusOf(store.create(ctx, `{"metadata":{"name":"t"},"spec":${nested(MAX_JSON_DEPTH)}}`));
    expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

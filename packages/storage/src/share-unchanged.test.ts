import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { committedEncodingOf } from './committed-encoding.ts';
import { deepFreeze } from './deep-equal.ts';
import { MemoryStorage } from './memory/memory-storage.ts';
import { shareUnchanged } from './share-unchanged.ts';

const K = '/registry/widgets/ns/a';

describe('shareUnchanged', () => {
  it('takes over equal members of the previous version and keeps changed ones; all equal gives the previous itself', () => {
    const prev = deepFreeze({ a: { x: [1, { y: 'z' }] }, b: { c: 1 }, d: ['p', 'q'], e: { f: 1, g: 2 } });
    const next = JSON.parse(JSON.stringify({ a: { x: [1, { y: 'z' }] }, b: { c: 2 }, d: ['p'], e: { f: 1 } }));
    const out = shareUnchanged(next, prev);
    expect(out).toBe(next);
    expect(next.a).toBe(prev.a);
    expect(next.b).not.toBe(prev.b);
    expect(next).toEqual({ a: { x: [1, { y: 'z' }] }, b: { c: 2 }, d: ['p'], e: { f: 1 } });
    const same = JSON.parse(JSON.stringify(prev));
    expect(shareUnchanged(same, prev)).toBe(prev);
  });

  it('MemoryStorage: a new revision shares what did not change with the one it replaces; both stay frozen and intact', async () => {
    const s = new MemoryStorage({ compaction: false });
    const big = { image: 'x'.repeat(1000), args: ['--a'] };
    const first = await s.create(K, {
      apiVersion: 'v1',
      kind: 'Widget',
      metadata: { name: 'a', labels: { app: 'w' } },
      spec: big,
      status: { n: 1 },
    });
    const second = await s.guaranteedUpdate(K, async (cur) => ({ ...(cur as KubeObject), status: { n: 2 } }));
    expect(second.spec).toBe(first.spec);
    expect(second.metadata.labels).toBe(first.metadata.labels);
    expect(second.status).toEqual({ n: 2 });
    expect(first.status).toEqual({ n: 1 });
    expect(Object.isFrozen(second.spec) && Object.isFrozen(second.status) && Object.isFrozen(second.metadata)).toBe(true);
    const at1 = await s.list('/registry/widgets/ns', { resourceVersion: first.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    expect(at1.items[0]).toEqual(first);
    expect(first.metadata.resourceVersion).not.toBe(second.metadata.resourceVersion);
  });

  it('shares a member only in the same key order, so an update keeps its committed text as its exact encoding', async () => {
    const prev = deepFreeze({ a: { x: 1, y: 2 }, b: { c: 1 } });
    const next = JSON.parse('{"a":{"y":2,"x":1},"b":{"c":1}}');
    expect(shareUnchanged(next, prev)).toBe(next);
    expect(next.a).not.toBe(prev.a);
    expect(next.b).toBe(prev.b);
    expect(shareUnchanged(JSON.parse('{"b":{"c":1},"a":{"x":1,"y":2}}'), prev)).not.toBe(prev);

    const s = new MemoryStorage({ compaction: false });
    await s.create(K, { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'a', labels: { app: 'w', tier: 't' } }, spec: { n: 1 } });
    // The client sends the labels in another order and changes the spec: the stored text is still the copy's JSON.
    const second = await s.guaranteedUpdate(K, async (cur) => ({
      ...(cur as KubeObject),
      metadata: { ...(cur as KubeObject).metadata, labels: { tier: 't', app: 'w' } },
      spec: { n: 2 },
    }));
    expect(committedEncodingOf(second)).toBe(JSON.stringify(second));
    const third = await s.guaranteedUpdate(K, async (cur) => ({ ...(cur as KubeObject), spec: { n: 3 } }));
    expect(third.metadata.labels).toBe(second.metadata.labels);
    expect(committedEncodingOf(third)).toBe(JSON.stringify(third));
  });
});

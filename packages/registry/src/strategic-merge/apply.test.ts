import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch } from './apply.ts';
import { EMPTY_PATCH_META, patchMetaFromSpec } from './patch-meta.ts';

// Pod-like patch metadata, as core/v1 tags it.
const containerMeta = {
  fields: {
    ports: { strategy: 'merge', mergeKey: 'containerPort' },
    env: { strategy: 'merge', mergeKey: 'name' },
    volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
  },
};
const pod = patchMetaFromSpec({
  fields: {
    metadata: { fields: { finalizers: { strategy: 'merge' }, ownerReferences: { strategy: 'merge', mergeKey: 'uid' } } },
    spec: {
      fields: {
        containers: { strategy: 'merge', mergeKey: 'name', items: containerMeta },
        volumes: { strategy: 'merge,retainKeys', mergeKey: 'name', items: { fields: { hostPath: {} } } },
        tolerations: {},
        selector: { strategy: 'replace' },
        strategy: { strategy: 'retainKeys' },
      },
    },
  },
});

const apply = (original: unknown, patch: unknown) => applyStrategicMergePatch(original, patch, pod);

function statusOf(f: () => unknown): { code: number; message: string } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return { code: (e as StatusError).code, message: (e as StatusError).message };
  }
  throw new Error('expected a StatusError');
}

const names = (list: unknown): unknown[] => (list as { name: string }[]).map((c) => c.name);

describe('applyStrategicMergePatch: maps', () => {
  it('merges maps recursively and deletes keys set to null', () => {
    const out = apply(
      { metadata: { labels: { a: '1', b: '2' }, annotations: { x: 'y' } }, spec: { nodeName: 'n1' } },
      { metadata: { labels: { b: null, c: '3' }, annotations: null }, spec: { hostname: 'h' } },
    );
    expect(out).toEqual({ metadata: { labels: { a: '1', c: '3' } }, spec: { nodeName: 'n1', hostname: 'h' } });
  });

  it('takes values for fields the original lacks, dropping nulls inside them', () => {
    expect(apply({}, { spec: { a: { b: null, c: 1 } } })).toEqual({ spec: { a: { c: 1 } } });
    expect(apply({ spec: {} }, { spec: { gone: null } })).toEqual({ spec: {} });
  });

  it('replaces a value of another kind', () => {
    expect(apply({ spec: { x: { a: 1 } } }, { spec: { x: [1] } })).toEqual({ spec: { x: [1] } });
    expect(apply({ spec: { x: 'a' } }, { spec: { x: { b: null, c: 2 } } })).toEqual({ spec: { x: { c: 2 } } });
  });

  it('replaces a map whose field has the replace strategy', () => {
    const out = apply({ spec: { selector: { a: '1', b: '2' } } }, { spec: { selector: { c: '3' } } });
    expect(out.spec).toEqual({ selector: { c: '3' } });
  });

  it('$patch: replace replaces a map with the rest of the patch', () => {
    const out = apply({ spec: { template: { a: 1, b: { c: 2 } } } }, { spec: { template: { $patch: 'replace', b: { d: 3 } } } });
    expect(out).toEqual({ spec: { template: { b: { d: 3 } } } });
    expect(apply({ a: 1, b: 2 }, { $patch: 'replace', c: 3 })).toEqual({ c: 3 });
  });

  it('$patch: delete empties a map (kube leaves {} in its place)', () => {
    expect(apply({ spec: { template: { a: 1 } }, x: 1 }, { spec: { template: { $patch: 'delete' } } })).toEqual({
      spec: { template: {} },
      x: 1,
    });
  });

  it('$patch: merge on a map is the default behaviour', () => {
    expect(apply({ spec: { a: 1 } }, { spec: { $patch: 'merge', b: 2 } })).toEqual({ spec: { a: 1, b: 2 } });
  });

  it('refuses an unknown $patch directive', () => {
    expect(statusOf(() => apply({ spec: {} }, { spec: { $patch: 'explode', a: 1 } }))).toEqual({
      code: 400,
      message: 'unknown patch type: explode in map: map[$patch:explode a:1]',
    });
  });

  it('keeps "__proto__" and "constructor" keys as data', () => {
    const out = apply({ constructor: 1 }, JSON.parse('{"__proto__": {"polluted": true}, "spec": {"constructor": {"x": 1}}}'));
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(out.spec).toEqual({ constructor: { x: 1 } });
    expect(out.constructor).toBe(1);
  });
});

describe('applyStrategicMergePatch: lists merged by key', () => {
  const original = {
    spec: {
      containers: [
        { name: 'web', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }] },
        { name: 'log', image: 'fluentd' },
      ],
    },
  };

  it('merges containers by name, updating in place', () => {
    const out = apply(original, { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } });
    expect(out.spec).toEqual({
      containers: [
        { name: 'web', image: 'nginx:2', ports: [{ containerPort: 80, protocol: 'TCP' }] },
        { name: 'log', image: 'fluentd' },
      ],
    });
  });

  it('adds new items before the original-only ones, as kube does without $setElementOrder', () => {
    const out = apply(original, { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } });
    expect(names((out.spec as { containers: unknown }).containers)).toEqual(['sidecar', 'web', 'log']);
  });

  it('interleaves patch items with original-only items by the original order', () => {
    const out = apply(
      { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
      { spec: { containers: [{ name: 'b', image: 'x' }, { name: 'd' }] } },
    );
    expect(names((out.spec as { containers: unknown }).containers)).toEqual(['a', 'b', 'd', 'c']);
  });

  it('merges nested keyed lists (ports by containerPort)', () => {
    const out = apply(original, {
      spec: { containers: [{ name: 'web', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }] },
    });
    const web = (out.spec as { containers: { ports: unknown }[] }).containers[0];
    expect(web?.ports).toEqual([{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443 }]);
  });

  it('deletes an item with $patch: delete by merge key', () => {
    const out = apply(original, { spec: { containers: [{ name: 'log', $patch: 'delete' }] } });
    expect(names((out.spec as { containers: unknown }).containers)).toEqual(['web']);
    const none = apply(original, { spec: { containers: [{ name: 'nope', $patch: 'delete' }] } });
    expect(names((none.spec as { containers: unknown }).containers)).toEqual(['web', 'log']);
  });

  it('deletes fields of an item with null', () => {
    const out = apply(original, { spec: { containers: [{ name: 'web', ports: null }] } });
    expect((out.spec as { containers: unknown[] }).containers[0]).toEqual({ name: 'web', image: 'nginx:1' });
  });

  it('replaces the whole list with a $patch: replace element', () => {
    const out = apply(original, { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } });
    expect(out.spec).toEqual({ containers: [{ name: 'only', image: 'x' }] });
    expect(apply(original, { spec: { containers: [{ $patch: 'replace' }] } }).spec).toEqual({ containers: [] });
  });

  it('requires the merge key on patch items, with kube message', () => {
    expect(statusOf(() => apply(original, { spec: { containers: [{ image: 'nginx:1.25' }] } }))).toEqual({
      code: 400,
      message: 'map: map[image:nginx:1.25] does not contain declared merge key: name',
    });
    expect(statusOf(() => apply(original, { spec: { containers: [{ $patch: 'delete' }] } })).message).toBe(
      'map: map[$patch:delete] does not contain declared merge key: name',
    );
  });

  it('refuses $patch: merge and unknown directives in lists', () => {
    expect(statusOf(() => apply(original, { spec: { containers: [{ $patch: 'merge' }] } })).message).toBe(
      'merging lists cannot yet be specified in the patch',
    );
    expect(statusOf(() => apply(original, { spec: { containers: [{ name: 'a', $patch: 'x' }] } })).message).toBe(
      'unknown patch type: x in map: map[$patch:x name:a]',
    );
  });

  it('refuses lists of lists (422) and mixed item kinds (400)', () => {
    expect(statusOf(() => apply({ spec: { containers: [] } }, { spec: { containers: [[1]] } })).code).toBe(422);
    expect(statusOf(() => apply({ spec: { containers: [{ name: 'a' }] } }, { spec: { containers: ['b'] } })).code).toBe(400);
  });

  it('takes a keyed list the original lacks, applying its directives', () => {
    const out = apply(
      { spec: {} },
      {
        spec: {
          containers: [
            { name: 'a', image: null },
            { name: 'b', $patch: 'delete' },
          ],
        },
      },
    );
    expect(out.spec).toEqual({ containers: [{ name: 'a' }] });
  });
});

describe('applyStrategicMergePatch: primitive lists', () => {
  it('merges a list marked merge as an ordered set', () => {
    const out = apply({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['b', 'c'] } });
    expect(out.metadata).toEqual({ finalizers: ['a', 'b', 'c'] });
  });

  it('puts new values first when the patch does not say where (kube behaviour)', () => {
    const out = apply({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['c'] } });
    expect(out.metadata).toEqual({ finalizers: ['c', 'a', 'b'] });
  });

  it('replaces a list without patch metadata', () => {
    expect(apply({ spec: { args: ['a', 'b'] } }, { spec: { args: ['c'] } })).toEqual({ spec: { args: ['c'] } });
    expect(apply({ spec: { tolerations: [{ key: 'a' }] } }, { spec: { tolerations: [{ key: 'b' }] } })).toEqual({
      spec: { tolerations: [{ key: 'b' }] },
    });
  });

  it('removes values with $deleteFromPrimitiveList', () => {
    const out = apply({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } });
    expect(out.metadata).toEqual({ finalizers: ['a', 'c'] });
    // Nothing to delete from: the list is not created.
    expect(apply({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } })).toEqual({ metadata: {} });
  });

  it('refuses a $deleteFromPrimitiveList that is not a list', () => {
    expect(
      statusOf(() => apply({ metadata: { finalizers: ['a'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } })),
    ).toEqual({
      code: 400,
      message: 'invalid patch format of primitive list',
    });
  });
});

describe('applyStrategicMergePatch: $setElementOrder', () => {
  const original = { spec: { containers: [{ name: 'a' }, { name: 'b', image: 'b' }, { name: 'c' }] } };

  it('orders a keyed list as told, merging the patch items', () => {
    const out = apply(original, {
      spec: {
        '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }],
        containers: [{ name: 'b', image: 'b2' }],
      },
    });
    expect(out.spec).toEqual({ containers: [{ name: 'c' }, { name: 'b', image: 'b2' }, { name: 'a' }] });
  });

  it('reorders without content changes, and places new items where the order says', () => {
    const out = apply(original, {
      spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'd' }, { name: 'b' }, { name: 'c' }], containers: [{ name: 'd' }] },
    });
    expect(names((out.spec as { containers: unknown }).containers)).toEqual(['a', 'd', 'b', 'c']);
    const reordered = apply(original, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }, { name: 'c' }] } });
    expect(names((reordered.spec as { containers: unknown }).containers)).toEqual(['b', 'a', 'c']);
  });

  it('slots items the order does not name in by the original order', () => {
    // b came before c in the original, and c leads the ordered run: b goes first (kube's mergeSortedSlice).
    const out = apply(original, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }] } });
    expect(names((out.spec as { containers: unknown }).containers)).toEqual(['b', 'c', 'a']);
  });

  it('works with deletions (the kubectl apply shape)', () => {
    const out = apply(original, {
      spec: {
        '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
        containers: [{ name: 'b', $patch: 'delete' }],
      },
    });
    expect(names((out.spec as { containers: unknown }).containers)).toEqual(['c', 'a']);
  });

  it('orders a primitive set, with $deleteFromPrimitiveList alongside', () => {
    const out = apply(
      { metadata: { finalizers: ['a', 'b', 'c'] } },
      { metadata: { '$setElementOrder/finalizers': ['c', 'd', 'a'], finalizers: ['d'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
    );
    expect(out.metadata).toEqual({ finalizers: ['c', 'd', 'a'] });
  });

  it('creates the list from the patch when the original has none', () => {
    const out = apply(
      { spec: {} },
      { spec: { '$setElementOrder/containers': [{ name: 'y' }, { name: 'x' }], containers: [{ name: 'y' }, { name: 'x' }] } },
    );
    expect(names((out.spec as { containers: unknown }).containers)).toEqual(['y', 'x']);
  });

  it('refuses a patch list out of step with the order list', () => {
    const err = statusOf(() =>
      apply(original, {
        spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b' }, { name: 'a' }] },
      }),
    );
    expect(err.code).toBe(400);
    expect(err.message).toBe(
      "The order in patch list:\n[map[name:b] map[name:a]]\n doesn't match $setElementOrder list:\n[map[name:a] map[name:b]]\n",
    );
  });

  it('refuses malformed order lists', () => {
    expect(statusOf(() => apply(original, { spec: { '$setElementOrder/containers': 'a' } })).message).toBe(
      'invalid patch format of setElementOrder list',
    );
    expect(statusOf(() => apply(original, { spec: { '$setElementOrder/containers': [{ image: 'x' }] } })).message).toBe(
      'map: map[image:x] does not contain declared merge key: name',
    );
  });
});

describe('applyStrategicMergePatch: $retainKeys', () => {
  it('clears original keys not retained (a Deployment strategy switching type)', () => {
    const out = apply(
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    );
    expect(out.spec).toEqual({ strategy: { type: 'Recreate' } });
  });

  it('applies inside keyed list items (volumes switching source)', () => {
    const out = apply(
      { spec: { volumes: [{ name: 'v', emptyDir: {} }] } },
      { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/x' } }] } },
    );
    expect(out.spec).toEqual({ volumes: [{ name: 'v', hostPath: { path: '/x' } }] });
  });

  it('allows nulls and directive keys beside the list, and refuses other unlisted keys', () => {
    const ok = apply({ spec: { strategy: { a: 1, b: 2 } } }, { spec: { strategy: { $retainKeys: ['a'], b: null } } });
    expect(ok.spec).toEqual({ strategy: { a: 1 } });
    expect(statusOf(() => apply({ spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: ['a'], b: 1 } } }))).toEqual({
      code: 400,
      message: 'invalid patch format of retainKeys',
    });
    expect(statusOf(() => apply({ spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: 'a' } } })).message).toBe(
      'invalid patch format of retainKeys',
    );
  });
});

describe('applyStrategicMergePatch: fallback and inputs', () => {
  it('without patch metadata behaves as a JSON merge patch', () => {
    const out = applyStrategicMergePatch(
      { spec: { list: [{ name: 'a' }], map: { a: 1, b: 2 } } },
      { spec: { list: [{ name: 'b' }], map: { a: null, c: 3 } } },
      EMPTY_PATCH_META,
    );
    expect(out).toEqual({ spec: { list: [{ name: 'b' }], map: { b: 2, c: 3 } } });
  });

  it('refuses a merge strategy on objects without a merge key', () => {
    const meta = patchMetaFromSpec({ fields: { items: { strategy: 'merge' } } });
    expect(statusOf(() => applyStrategicMergePatch({ items: [{ a: 1 }] }, { items: [{ a: 2 }] }, meta)).message).toBe(
      'cannot merge lists without merge key for type map',
    );
  });

  it('refuses a patch that is not an object', () => {
    expect(statusOf(() => apply({}, [1])).code).toBe(400);
    expect(statusOf(() => apply({}, null)).code).toBe(400);
  });

  it('patches a missing original as an empty object', () => {
    expect(apply(undefined, { a: 1, b: null })).toEqual({ a: 1 });
  });

  it('mutates neither input and shares nothing with them', () => {
    const original = { spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '1' }] }] }, metadata: { labels: { a: '1' } } };
    const patch = {
      spec: {
        '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }],
        containers: [{ name: 'b' }, { name: 'a', env: [{ name: 'Y' }] }],
      },
      metadata: { $retainKeys: ['labels'], labels: { b: '2' } },
    };
    const before = structuredClone({ original, patch });
    const out = apply(original, patch);
    expect({ original, patch }).toEqual(before);
    (out.metadata as { labels: Record<string, string> }).labels.c = '3';
    expect(original.metadata.labels).toEqual({ a: '1' });
  });
});

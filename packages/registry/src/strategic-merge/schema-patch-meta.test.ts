import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { listMap, listSet, withKubeMeta } from '../kube-extensions.ts';
import { applyStrategicMergePatch } from './apply.ts';
import { EMPTY_PATCH_META } from './patch-meta.ts';
import { patchMetaFor, patchMetaForOpenAPI, patchMetaForSchema } from './schema-patch-meta.ts';

// A Pod-like kind: keyed containers (by name) with keyed ports (by containerPort), a primitive set, a retainKeys
// map and an unmarked list.
const port = z.object({ containerPort: z.int(), protocol: z.string().optional(), name: z.string().optional() });
const container = z.object({
  name: z.string(),
  image: z.string().optional(),
  ports: listMap(z.array(port), ['containerPort', 'protocol']).optional(),
  args: z.array(z.string()).optional(),
});
const strategy = withKubeMeta(z.object({ type: z.string(), rollingUpdate: z.object({ maxSurge: z.int() }).optional() }), {
  patchStrategy: 'retainKeys',
});
const podSchema = z.object({
  spec: z.object({
    containers: listMap(z.array(container), ['name']),
    gates: listSet(z.array(z.string())).optional(),
    strategy: strategy.optional(),
    tolerations: z.array(z.object({ key: z.string() })).optional(),
    extra: z.record(z.string(), z.object({ items: listMap(z.array(z.object({ id: z.string() })), ['id']) })).optional(),
  }),
});
const Pod = defineResource({
  group: 'example.kapi.dev',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
  versions: [{ name: 'v1', schema: podSchema }],
});

describe('patch metadata from schemas', () => {
  const meta = patchMetaFor(Pod, 'v1');

  it('reads merge keys and strategies recorded by listMap / listSet / withKubeMeta', () => {
    const containers = meta.field('spec').field('containers');
    expect(containers.strategies).toEqual(['merge']);
    expect(containers.mergeKey).toBe('name');
    expect(containers.items().field('ports').mergeKey).toBe('containerPort');
    expect(meta.field('spec').field('gates').strategies).toEqual(['merge']);
    expect(meta.field('spec').field('gates').mergeKey).toBeUndefined();
    expect(meta.field('spec').field('strategy').strategies).toEqual(['retainKeys']);
    expect(meta.field('spec').field('tolerations').strategies).toEqual([]);
    expect(meta.field('spec').field('extra').field('any-key').field('items').mergeKey).toBe('id');
    expect(meta.field('spec').field('unknown')).toBe(EMPTY_PATCH_META);
  });

  it('describes ObjectMeta as Kubernetes tags it', () => {
    expect(meta.field('metadata').field('finalizers').strategies).toEqual(['merge']);
    expect(meta.field('metadata').field('ownerReferences').mergeKey).toBe('uid');
    expect(meta.field('metadata').field('labels').strategies).toEqual([]);
  });

  it('is cached per version and refuses unknown versions', () => {
    expect(patchMetaFor(Pod, 'v1')).toBe(meta);
    expect(() => patchMetaFor(Pod, 'v2')).toThrow('Pod.example.kapi.dev has no version "v2"');
  });

  it('drives the patch: the kubectl patch documentation example', () => {
    const live = {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Pod',
      metadata: { name: 'patch-demo', finalizers: ['a'], ownerReferences: [{ uid: 'u1', name: 'x' }] },
      spec: {
        containers: [{ name: 'patch-demo-ctr', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], args: ['-a'] }],
        tolerations: [{ key: 'a' }],
      },
    };
    const out = applyStrategicMergePatch(
      live,
      {
        metadata: { finalizers: ['b'], ownerReferences: [{ uid: 'u1', controller: true }] },
        spec: {
          containers: [
            { name: 'patch-demo-ctr-2', image: 'redis' },
            { name: 'patch-demo-ctr', ports: [{ containerPort: 8080 }], args: ['-b'] },
          ],
          tolerations: [{ key: 'b' }],
        },
      },
      meta,
    );
    expect(out).toEqual({
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Pod',
      metadata: { name: 'patch-demo', finalizers: ['b', 'a'], ownerReferences: [{ uid: 'u1', name: 'x', controller: true }] },
      spec: {
        containers: [
          { name: 'patch-demo-ctr-2', image: 'redis' },
          {
            name: 'patch-demo-ctr',
            image: 'nginx',
            ports: [{ containerPort: 8080 }, { containerPort: 80, protocol: 'TCP' }],
            args: ['-b'],
          },
        ],
        tolerations: [{ key: 'b' }],
      },
    });
  });

  it('falls back to merge-patch semantics where the schema says nothing', () => {
    const loose = patchMetaForSchema(z.object({ data: z.unknown() }));
    const out = applyStrategicMergePatch({ data: { l: [1, 2], m: { a: 1 } } }, { data: { l: [3], m: { b: 2 } } }, loose);
    expect(out).toEqual({ data: { l: [3], m: { a: 1, b: 2 } } });
  });

  it('reads OpenAPI extensions', () => {
    const m = patchMetaForOpenAPI({
      type: 'object',
      properties: {
        items: { type: 'array', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'id', items: { type: 'object' } },
      },
    });
    expect(m.field('items').strategies).toEqual(['merge']);
    expect(m.field('items').mergeKey).toBe('id');
    expect(m.field('other')).toBe(EMPTY_PATCH_META);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  atomicList,
  atomicMap,
  intOrString,
  kubeMetaOf,
  listMap,
  listSet,
  preserveUnknownFields,
  withKubeMeta,
} from './kube-extensions.ts';

describe('Kubernetes field metadata', () => {
  const item = z.object({ name: z.string(), protocol: z.string() });

  it('records list-map keys and the merge key on a copy, leaving the original untouched', () => {
    const list = z.array(item);
    const keyed = listMap(list, ['name', 'protocol']);
    expect(kubeMetaOf(keyed)).toEqual({
      listType: 'map',
      listMapKeys: ['name', 'protocol'],
      patchStrategy: 'merge',
      patchMergeKey: 'name',
    });
    expect(kubeMetaOf(list)).toBeUndefined();
    expect(keyed.parse([{ name: 'a', protocol: 'TCP' }])).toEqual([{ name: 'a', protocol: 'TCP' }]);
  });

  it('finds the metadata through optional and nullable wrappers', () => {
    expect(kubeMetaOf(listSet(z.array(z.string())).optional())).toEqual({ listType: 'set', patchStrategy: 'merge' });
  });

  it('refuses list-map keys the items do not have', () => {
    expect(() => listMap(z.array(item), ['id'])).toThrow('listMap: key "id" is not a field of the list\'s items');
  });

  it('marks atomic lists and maps, and combines facts', () => {
    expect(kubeMetaOf(atomicList(z.array(z.string())))).toEqual({ listType: 'atomic' });
    expect(kubeMetaOf(atomicMap(z.record(z.string(), z.string())))).toEqual({ mapType: 'atomic' });
    expect(kubeMetaOf(withKubeMeta(atomicList(z.array(z.string())), { patchStrategy: 'replace' }))).toEqual({
      listType: 'atomic',
      patchStrategy: 'replace',
    });
  });

  it('keeps unknown fields of a preserveUnknownFields object', () => {
    const kept = preserveUnknownFields(z.object({ a: z.string() }));
    expect(kept.parse({ a: 'x', b: 1 })).toEqual({ a: 'x', b: 1 });
    expect(kubeMetaOf(kept)).toEqual({ preserveUnknownFields: true });
  });

  it('accepts integers and strings as int-or-string', () => {
    const s = intOrString();
    expect(s.parse(8080)).toBe(8080);
    expect(s.parse('http')).toBe('http');
    expect(s.safeParse(1.5).success).toBe(false);
    expect(kubeMetaOf(s)).toEqual({ intOrString: true });
  });
});

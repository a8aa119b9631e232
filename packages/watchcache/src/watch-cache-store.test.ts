import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { NAMESPACE_INDEX, WatchCacheStore } from './watch-cache-store.ts';

const P = '/registry/widgets';
const obj = (namespace: string, name: string, rv = 1): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Widget',
  metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: String(rv) },
});

/** Keys in the default layout, keys of another layout (a subresource-like key, a key outside the prefix), both scopes. */
const items: { key: string; obj: KubeObject }[] = [
  { key: `${P}/a/w1`, obj: obj('a', 'w1') },
  { key: `${P}/a/w2`, obj: obj('a', 'w2') },
  { key: `${P}/ab/w1`, obj: obj('ab', 'w1') },
  { key: `${P}/b/w1`, obj: obj('b', 'w1') },
  { key: `${P}/a/w3/child`, obj: obj('a', 'child') },
  { key: `${P}/b/odd`, obj: obj('a', 'odd') },
  { key: '/elsewhere/a/x', obj: obj('a', 'x') },
  { key: `${P}/c1`, obj: obj('', 'c1') },
  { key: `${P}/a`, obj: obj('', 'a') },
];

const keys = new Map<KubeObject, string>();
const keyOf = (o: KubeObject) => keys.get(o) as string;

/** What byIndex must give: every object under `prefix` in namespace `ns`, in key order. */
const expected = (store: WatchCacheStore, ns: string, prefix: string) =>
  [...store.all()].filter((o) => (o.metadata.namespace ?? '') === ns && keyOf(o).startsWith(prefix));

describe('WatchCacheStore', () => {
  for (const prefix of [P, undefined]) {
    it(`namespace index ${prefix ? 'over key ranges (given the prefix)' : 'of every key'}: objects of a namespace in key order, whatever their key`, () => {
      const store = new WatchCacheStore({}, prefix);
      for (const { key, obj: o } of items) keys.set(o, key);
      store.replace(items.slice(0, 4));
      for (const { key, obj: o } of items.slice(4)) store.set(key, o);
      for (const ns of ['a', 'ab', 'b', '', 'zz'])
        for (const under of ['/', `${P}/`, `${P}/a/`, `${P}/b/`, '/elsewhere/'])
          expect(store.byIndex(NAMESPACE_INDEX, ns, under), `${ns} under ${under}`).toEqual(expected(store, ns, under));
      expect(store.byIndex(NAMESPACE_INDEX, 'a', '/')?.map((o) => keyOf(o))).toEqual([
        '/elsewhere/a/x',
        `${P}/a/w1`,
        `${P}/a/w2`,
        `${P}/a/w3/child`,
        `${P}/b/odd`,
      ]);
      // Replaced and deleted objects leave the index, whichever way they were found.
      const moved = obj('b', 'odd', 2);
      keys.set(moved, `${P}/b/odd`);
      store.set(`${P}/b/odd`, moved);
      store.delete(`${P}/a/w1`);
      store.delete(`${P}/a/w3/child`);
      expect(store.byIndex(NAMESPACE_INDEX, 'a', '/')?.map((o) => keyOf(o))).toEqual(['/elsewhere/a/x', `${P}/a/w2`]);
      expect(store.byIndex(NAMESPACE_INDEX, 'b', '/')?.map((o) => keyOf(o))).toEqual([`${P}/b/odd`, `${P}/b/w1`]);
      expect(store.byIndex(NAMESPACE_INDEX, '', '/')?.map((o) => keyOf(o))).toEqual([`${P}/a`, `${P}/c1`]);
      expect(store.byIndex('spec.other', 'x', '/')).toBeUndefined();
    });
  }
});

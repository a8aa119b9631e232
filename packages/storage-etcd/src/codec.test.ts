import type { KubeObject } from '@kapi/apimachinery';
import { isStorageError, storageKeyOf } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { decodeObject, encodeObject } from './codec.ts';

const obj: KubeObject = {
  apiVersion: 'v1',
  kind: 'Widget',
  metadata: { name: 'a', resourceVersion: '7', labels: { app: 'web' } },
  spec: { size: 1 },
};

describe('encodeObject', () => {
  it('stores JSON without metadata.resourceVersion, keeping the key order', () => {
    expect(encodeObject('/k', obj).toString()).toBe(
      '{"apiVersion":"v1","kind":"Widget","metadata":{"name":"a","labels":{"app":"web"}},"spec":{"size":1}}',
    );
  });

  it('does not change its input', () => {
    const frozen = Object.freeze({ ...obj, metadata: Object.freeze({ ...obj.metadata }) });
    encodeObject('/k', frozen);
    expect(frozen.metadata.resourceVersion).toBe('7');
  });

  it('refuses what is not a JSON object as InvalidObject', () => {
    for (const bad of [null, [], 'x'] as unknown[]) {
      expect(() => encodeObject('/k', bad as KubeObject)).toThrow(expect.objectContaining({ code: 'InvalidObject' }));
    }
    const cyclic = { ...obj, spec: {} as Record<string, unknown> };
    cyclic.spec.self = cyclic;
    let err: unknown;
    try {
      encodeObject('/k', cyclic);
    } catch (e) {
      err = e;
    }
    expect(isStorageError(err, 'InvalidObject')).toBe(true);
  });
});

describe('decodeObject', () => {
  it('round-trips, with the revision as resourceVersion', () => {
    expect(decodeObject('/k', encodeObject('/k', obj), 42)).toEqual({ ...obj, metadata: { ...obj.metadata, resourceVersion: '42' } });
  });

  it('records the storage key on the object', () => {
    expect(storageKeyOf(decodeObject('/registry/x/ns/a/child', encodeObject('/k', obj), 1))).toBe('/registry/x/ns/a/child');
  });

  it('gives an object without metadata one', () => {
    expect(decodeObject('/k', Buffer.from('{"kind":"X"}'), 3)).toEqual({ kind: 'X', metadata: { resourceVersion: '3' } });
  });

  it('reports undecodable data as InvalidObject (a 500 at the API)', () => {
    for (const raw of ['not json', '[1]', '"s"', 'null']) {
      let err: unknown;
      try {
        decodeObject('/registry/k', Buffer.from(raw), 1);
      } catch (e) {
        err = e;
      }
      expect(isStorageError(err, 'InvalidObject'), raw).toBe(true);
      expect((err as { toStatusError(): { code: number } }).toStatusError().code).toBe(500);
    }
  });
});

import type { KubeObject } from '@kapi/apimachinery';
import { isStorageError, storageKeyOf } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_VALUE_BYTES, decodeFrozen, decodeObject, encodeObject } from './object-codec.ts';

const obj = (extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Widget',
  metadata: { name: 'a', resourceVersion: '7', labels: { x: 'y' } },
  spec: { size: 1 },
  ...extra,
});

describe('encodeObject', () => {
  it('stores the JSON without metadata.resourceVersion, keeping field order', () => {
    expect(encodeObject('/k', obj(), 1000)).toBe(
      '{"apiVersion":"v1","kind":"Widget","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"size":1}}',
    );
  });

  it('gives an object without metadata an empty one', () => {
    expect(encodeObject('/k', { kind: 'X' } as unknown as KubeObject, 1000)).toBe('{"kind":"X","metadata":{}}');
  });

  it('refuses what is not a JSON object as InvalidObject', () => {
    for (const bad of [null, [], 'x', 3]) {
      const e = (() => {
        try {
          encodeObject('/k', bad as unknown as KubeObject, 1000);
        } catch (err) {
          return err;
        }
      })();
      expect(isStorageError(e, 'InvalidObject')).toBe(true);
    }
    const cyclic = obj();
    (cyclic as Record<string, unknown>).self = cyclic;
    expect(() => encodeObject('/k', cyclic, 1000)).toThrow(/cannot be encoded as JSON/);
    expect(() => encodeObject('/k', obj({ n: 1n }), 1000)).toThrow(/cannot be encoded as JSON/);
  });

  it('counts UTF-8 bytes against the limit: RequestTooLarge above it', () => {
    const limit = Buffer.byteLength(encodeObject('/k', obj({ pad: 'a'.repeat(9) }), 10_000));
    expect(() => encodeObject('/k', obj({ pad: 'a'.repeat(9) }), limit)).not.toThrow();
    // 'é' is one UTF-16 unit but two UTF-8 bytes.
    let err: unknown;
    try {
      encodeObject('/k', obj({ pad: 'é'.repeat(9) }), limit);
    } catch (e) {
      err = e;
    }
    expect(isStorageError(err, 'RequestTooLarge')).toBe(true);
    expect((err as Error).message).toContain(`exceeds the storage request limit of ${limit} bytes`);
  });

  it("defaults to etcd's 1.5 MiB", () => {
    expect(DEFAULT_MAX_VALUE_BYTES).toBe(1572864);
  });
});

describe('decodeObject', () => {
  it('sets the resourceVersion from the revision on a fresh copy', () => {
    const json = encodeObject('/k', obj(), 1000);
    const a = decodeObject('/k', json, 42);
    expect(a.metadata.resourceVersion).toBe('42');
    expect(a).toEqual({ ...obj(), metadata: { ...obj().metadata, resourceVersion: '42' } });
    a.metadata.name = 'changed';
    expect(decodeObject('/k', json, 42).metadata.name).toBe('a');
  });

  it('records the storage key on the object', () => {
    expect(storageKeyOf(decodeObject('/registry/x/ns/a/child', '{}', 1))).toBe('/registry/x/ns/a/child');
    expect(storageKeyOf(decodeFrozen('/registry/x/ns/b', '{}', 1))).toBe('/registry/x/ns/b');
  });

  it('decodeFrozen freezes deeply', () => {
    const f = decodeFrozen('/k', '{"metadata":{"name":"a"},"spec":{"list":[1]}}', 3);
    expect(f.metadata.resourceVersion).toBe('3');
    expect(Object.isFrozen(f)).toBe(true);
    expect(Object.isFrozen((f.spec as { list: number[] }).list)).toBe(true);
  });
});

import { FakeClock, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { StoreKeys } from '../store/store-keys.ts';
import { backends } from '../test-support/backends.ts';
import { ConfigMap } from './configmap.ts';

describe.each(backends)('over %s', (_label, wrap) => {
  let memory: MemoryStorage;
  let close: () => Promise<void>;
  let store: Store<ConfigMap>;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    const backend = await wrap(memory, new StoreKeys(ConfigMap).resourcePrefix);
    close = backend.close;
    store = new Store(ConfigMap, { storage: backend.storage, clock: new FakeClock() });
  });
  afterEach(async () => {
    await close();
    await memory.close();
  });

  const cm = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns' },
    ...extra,
  });

  async function invalid(p: Promise<unknown>): Promise<StatusError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(422);
    return err as StatusError;
  }

  describe('ConfigMap', () => {
    it('stores data and binaryData without a generation', async () => {
      const { object } = await store.create({ namespace: 'ns' }, cm('a', { data: { 'app.conf': 'x=1' }, binaryData: { blob: 'AAEC' } }));
      expect(object.data).toEqual({ 'app.conf': 'x=1' });
      expect(object.binaryData).toEqual({ blob: 'AAEC' });
      expect(object.metadata.generation).toBeUndefined();
    });

    it('validates keys as config map keys, in kube-apiserver words', async () => {
      const err = await invalid(store.create({ namespace: 'ns' }, cm('a', { data: { 'a b': '1', '..x': '2' } })));
      expect(err.message).toBe(
        "ConfigMap \"a\" is invalid: [data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), data[..x]: Invalid value: \"..x\": must not start with '..']",
      );
      expect(err.status.details?.causes?.map((c) => c.field)).toEqual(['data[a b]', 'data[..x]']);
    });

    it('refuses a key in both maps and binaryData that is not base64', async () => {
      const err = await invalid(store.create({ namespace: 'ns' }, cm('a', { data: { k: 'v' }, binaryData: { k: 'AAEC', bad: 'no!' } })));
      expect(err.message).toBe(
        'ConfigMap "a" is invalid: [data[k]: Invalid value: "k": duplicate of key present in binaryData, binaryData[bad]: Invalid value: illegal base64 data at input byte 2]',
      );
    });

    it('warns of no finalizer names, as a core kind, and refuses a broken owner reference', async () => {
      const created = await store.create(
        { namespace: 'ns' },
        { ...cm('a'), metadata: { name: 'a', namespace: 'ns', finalizers: ['cleanup'] } },
      );
      expect(created.warnings).toEqual([]);
      const err = await invalid(
        store.create(
          { namespace: 'ns' },
          { ...cm('b'), metadata: { name: 'b', namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p' }] } },
        ),
      );
      expect(err.message).toBe('ConfigMap "b" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty');
    });

    it('allows unconditional updates', async () => {
      await store.create({ namespace: 'ns' }, cm('a', { data: { k: 'v' } }));
      const { object } = await store.update({ namespace: 'ns' }, 'a', cm('a', { data: { k: 'w' } }));
      expect(object.data).toEqual({ k: 'w' });
    });

    it('honours immutable: data, binaryData and immutable itself are frozen, metadata is not', async () => {
      await store.create({ namespace: 'ns' }, cm('a', { data: { k: 'v' }, binaryData: { b: 'AA==' }, immutable: true }));
      const err = await invalid(store.update({ namespace: 'ns' }, 'a', cm('a', { data: { k: 'w' }, binaryData: { b: 'AA==' } })));
      expect(err.message).toBe(
        'ConfigMap "a" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]',
      );
      const err2 = await invalid(store.patch({ namespace: 'ns' }, 'a', { binaryData: null }, 'merge'));
      expect(err2.status.details?.causes).toEqual([
        { reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: 'binaryData' },
      ]);
      const { object } = await store.patch({ namespace: 'ns' }, 'a', { metadata: { labels: { x: 'y' } } }, 'merge');
      expect(object.metadata.labels).toEqual({ x: 'y' });
    });

    it('may become immutable, and a mutable one changes freely', async () => {
      await store.create({ namespace: 'ns' }, cm('a', { data: { k: 'v' }, immutable: false }));
      await store.update({ namespace: 'ns' }, 'a', cm('a', { data: { k: 'w' }, immutable: true }));
      expect((await store.get({ namespace: 'ns' }, 'a')).immutable).toBe(true);
    });
  });
});

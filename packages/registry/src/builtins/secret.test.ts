import { FakeClock, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { StoreKeys } from '../store/store-keys.ts';
import { backends } from '../test-support/backends.ts';
import { Secret } from './secret.ts';

describe.each(backends)('over %s', (_label, wrap) => {
  let memory: MemoryStorage;
  let close: () => Promise<void>;
  let store: Store<Secret>;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    const backend = await wrap(memory, new StoreKeys(Secret).resourcePrefix);
    close = backend.close;
    store = new Store(Secret, { storage: backend.storage, clock: new FakeClock() });
  });
  afterEach(async () => {
    await close();
    await memory.close();
  });

  const secret = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'ns' },
    ...extra,
  });
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  async function invalid(p: Promise<unknown>): Promise<StatusError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(422);
    return err as StatusError;
  }

  describe('Secret', () => {
    it('defaults type to Opaque', async () => {
      const { object } = await store.create({ namespace: 'ns' }, secret('s', { data: { k: b64('v') } }));
      expect(object.type).toBe('Opaque');
      expect(object.data).toEqual({ k: 'dg==' });
    });

    it('refuses data that is not base64, without echoing the value', async () => {
      const err = await invalid(store.create({ namespace: 'ns' }, secret('s', { data: { password: 'hunter2!' } })));
      expect(err.message).toBe('Secret "s" is invalid: data[password]: Invalid value: illegal base64 data at input byte 7');
      expect(err.message).not.toContain('hunter');
    });

    it('takes types and keys named like prototype members as data (no 500)', async () => {
      for (const type of ['constructor', '__proto__', 'toString']) {
        const { object } = await store.create(
          { namespace: 'ns' },
          secret(`s-${type.replace(/_/g, '').toLowerCase()}`, { type, data: { k: b64('v') } }),
        );
        expect(object.type).toBe(type);
      }
      const { object } = await store.create(
        { namespace: 'ns' },
        secret('keys', JSON.parse('{"data":{"constructor":"dg=="},"stringData":{"__proto__":"p","prototype":"q"}}')),
      );
      expect(JSON.stringify(object.data)).toBe(`{"constructor":"dg==","__proto__":"${b64('p')}","prototype":"${b64('q')}"}`);
    });

    it('merges stringData into data on create and drops it', async () => {
      const { object } = await store.create(
        { namespace: 'ns' },
        secret('s', { data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'plain' } }),
      );
      expect(object.data).toEqual({ a: b64('new'), b: b64('keep'), c: b64('plain') });
      expect('stringData' in object).toBe(false);
      expect('stringData' in (await store.get({ namespace: 'ns' }, 's'))).toBe(false);
    });

    it('merges stringData on update and patch too', async () => {
      await store.create({ namespace: 'ns' }, secret('s', { data: { a: b64('1') } }));
      const up = await store.update({ namespace: 'ns' }, 's', secret('s', { data: { a: b64('1') }, stringData: { b: '2' } }));
      expect(up.object.data).toEqual({ a: b64('1'), b: b64('2') });
      const patched = await store.patch({ namespace: 'ns' }, 's', { stringData: { a: 'x' } }, 'merge');
      expect(patched.object.data).toEqual({ a: b64('x'), b: b64('2') });
      expect('stringData' in patched.object).toBe(false);
    });

    it('validates stringData keys as data keys', async () => {
      const err = await invalid(store.create({ namespace: 'ns' }, secret('s', { stringData: { 'a/b': 'x' } })));
      expect(err.status.details?.causes?.[0]?.field).toBe('data[a/b]');
    });

    it('requires the keys of its type', async () => {
      const err = await invalid(
        store.create({ namespace: 'ns' }, secret('s', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } })),
      );
      expect(err.message).toBe('Secret "s" is invalid: data[tls.key]: Required value');
      const basic = await invalid(store.create({ namespace: 'ns' }, secret('b', { type: 'kubernetes.io/basic-auth' })));
      expect(basic.status.details?.causes?.map((c) => c.field)).toEqual(['data[username]', 'data[password]']);
      await store.create({ namespace: 'ns' }, secret('b', { type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } }));
    });

    it('keeps type immutable and honours immutable', async () => {
      await store.create({ namespace: 'ns' }, secret('s', { data: { a: b64('1') }, immutable: true }));
      const err = await invalid(
        store.update({ namespace: 'ns' }, 's', secret('s', { type: 'Other', stringData: { a: '2' }, immutable: true })),
      );
      expect(err.message).toBe(
        'Secret "s" is invalid: [type: Invalid value: "Other": field is immutable, data: Forbidden: field is immutable when `immutable` is set]',
      );
      const unset = await invalid(store.patch({ namespace: 'ns' }, 's', { immutable: null }, 'merge'));
      expect(unset.message).toBe('Secret "s" is invalid: immutable: Forbidden: field is immutable when `immutable` is set');
    });

    it('selects by type', async () => {
      await store.create({ namespace: 'ns' }, secret('a'));
      await store.create({ namespace: 'ns' }, secret('t', { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }));
      const list = await store.list({ namespace: 'ns' }, { fieldSelector: 'type=kubernetes.io/tls' });
      expect(list.items.map((s) => s.metadata.name)).toEqual(['t']);
    });
  });
});

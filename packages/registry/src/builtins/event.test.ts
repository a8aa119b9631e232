import { FakeClock, type StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { StoreKeys } from '../store/store-keys.ts';
import { backends } from '../test-support/backends.ts';
import { Event } from './event.ts';

describe.each(backends)('over %s', (_label, wrap) => {
  let memory: MemoryStorage;
  let close: () => Promise<void>;
  let store: Store<Event>;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    const backend = await wrap(memory, new StoreKeys(Event).resourcePrefix);
    close = backend.close;
    store = new Store(Event, { storage: backend.storage, clock: new FakeClock() });
  });
  afterEach(async () => {
    await close();
    await memory.close();
  });

  const event = (name: string, involved: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'ns' },
    involvedObject: involved,
    reason: 'Started',
    message: 'started it',
    type: 'Normal',
    count: 1,
    source: { component: 'kubelet' },
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:00:00Z',
    ...extra,
  });

  describe('Event', () => {
    it('stores the core/v1 fields', async () => {
      const { object } = await store.create({ namespace: 'ns' }, event('e1', { kind: 'Pod', name: 'p', namespace: 'ns' }));
      expect(object).toMatchObject({ reason: 'Started', count: 1, source: { component: 'kubelet' }, involvedObject: { name: 'p' } });
    });

    it("requires the involved object's namespace to match the event's", async () => {
      const missing = await store.create({ namespace: 'ns' }, { ...event('e', {}), involvedObject: undefined }).catch((e: unknown) => e);
      expect((missing as StatusError).message).toBe(
        'Event "e" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace',
      );
      const err = (await store
        .create({ namespace: 'ns' }, event('e', { kind: 'Pod', name: 'p', namespace: 'other' }))
        .catch((e: unknown) => e)) as StatusError;
      expect(err.code).toBe(422);
      expect(err.message).toBe('Event "e" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace');
    });

    it('lets a cluster-scoped involved object be reported in "default" only', async () => {
      const node = { kind: 'Node', name: 'n1' };
      await store.create({ namespace: 'default' }, { ...event('e', node), metadata: { name: 'e', namespace: 'default' } });
      const err = (await store.create({ namespace: 'ns' }, event('e', node)).catch((e: unknown) => e)) as StatusError;
      expect(err.message).toBe('Event "e" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace');
    });

    it('refuses times Go clients could not decode (400, as kube-apiserver decodes them), on create and update', async () => {
      const pod = { kind: 'Pod', name: 'p', namespace: 'ns' };
      const refused = async (extra: Record<string, unknown>, write: 'create' | 'update' = 'create') => {
        const e = event('e', pod, extra);
        const p = write === 'create' ? store.create({ namespace: 'ns' }, e) : store.update({ namespace: 'ns' }, 'e', e);
        const err = (await p.catch((x: unknown) => x)) as StatusError;
        expect(err.code).toBe(400);
        return err.message;
      };
      expect(await refused({ firstTimestamp: 'garbage' })).toBe(
        'Event in version "v1" cannot be handled as a Event: parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
      );
      expect(await refused({ lastTimestamp: '2026-01-01' }, 'update')).toContain('cannot parse "" as "T"');
      expect(await refused({ eventTime: '2026-01-01T00:00:00Z' })).toContain('cannot parse "Z" as ".000000"');
      expect(await refused({ series: { count: 2, lastObservedTime: 'x' } })).toContain('parsing time "x"');
      await expect(store.list({ namespace: 'ns' })).resolves.toMatchObject({ items: [] });
    });

    it('creates on update and updates unconditionally, as event recorders do', async () => {
      const put = await store.update({ namespace: 'ns' }, 'e', event('e', { kind: 'Pod', name: 'p', namespace: 'ns' }));
      expect(put.created).toBe(true);
      const again = await store.update({ namespace: 'ns' }, 'e', event('e', { kind: 'Pod', name: 'p', namespace: 'ns' }, { count: 2 }));
      expect(again.created).toBe(false);
      expect(again.object.count).toBe(2);
    });

    it('selects by involved object, reason and type', async () => {
      await store.create({ namespace: 'ns' }, event('a', { kind: 'Pod', name: 'p', namespace: 'ns' }));
      await store.create({ namespace: 'ns' }, event('b', { kind: 'Pod', name: 'q', namespace: 'ns' }, { type: 'Warning' }));
      const byName = await store.list({ namespace: 'ns' }, { fieldSelector: 'involvedObject.name=q' });
      expect(byName.items.map((e) => e.metadata.name)).toEqual(['b']);
      const byType = await store.list({ namespace: 'ns' }, { fieldSelector: 'type=Normal,involvedObject.kind=Pod,reason=Started' });
      expect(byType.items.map((e) => e.metadata.name)).toEqual(['a']);
    });
  });
});

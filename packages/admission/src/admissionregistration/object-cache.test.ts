import type { KubeObject } from '@kapi/apimachinery';
import { ConfigMap, type ListWatchSource, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namespaceLookupOf, ObjectCache } from './object-cache.ts';
import type { ValidatingWebhookConfiguration } from './types.ts';
import { ValidatingWebhookConfigurationResource } from './webhook-configuration-resources.ts';

let memory: MemoryStorage;
let abort: AbortController;
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  abort = new AbortController();
});
afterEach(async () => {
  abort.abort();
  await memory.close();
});

const vwc = (name: string, timeoutSeconds = 10) =>
  ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'hook.example.com',
        clientConfig: { url: 'https://hook.example.com' },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds,
      },
    ],
  }) as ValidatingWebhookConfiguration;

/** Resolves when `cond` holds, checked after each change the cache reports. */
function until<T extends KubeObject>(cache: ObjectCache<T>, cond: () => boolean): Promise<void> {
  if (cond()) return Promise.resolve();
  return new Promise((resolve) => {
    const off = cache.onChange(() => {
      if (cond()) {
        off();
        resolve();
      }
    });
  });
}

describe('ObjectCache', () => {
  it('lists what exists, then follows creates, updates and deletes', async () => {
    const store = new Store(ValidatingWebhookConfigurationResource, { storage: memory });
    await store.create({}, vwc('b'));
    await store.create({}, vwc('a'));
    const cache = new ObjectCache<ValidatingWebhookConfiguration>(store, { signal: abort.signal });
    expect(cache.synced).toBe(false);
    await cache.whenSynced();
    expect(cache.synced).toBe(true);
    // sorted by name, and the same array until a change
    expect(cache.list().map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(cache.list()).toBe(cache.list());
    expect(cache.get('', 'a')?.webhooks?.[0]?.failurePolicy).toBe('Fail');
    const before = cache.list();
    const gen = cache.generation;

    await store.create({}, vwc('c'));
    await until(cache, () => cache.get('', 'c') !== undefined);
    expect(cache.generation).toBeGreaterThan(gen);
    expect(cache.list()).not.toBe(before);
    expect(cache.list().map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);

    const a = cache.get('', 'a') as ValidatingWebhookConfiguration;
    await store.update({}, 'a', { ...a, webhooks: [{ ...a.webhooks?.[0], timeoutSeconds: 3 }] } as ValidatingWebhookConfiguration);
    await until(cache, () => cache.get('', 'a')?.webhooks?.[0]?.timeoutSeconds === 3);

    await store.delete({}, 'b');
    await until(cache, () => cache.get('', 'b') === undefined);
    expect(cache.list().map((o) => o.metadata.name)).toEqual(['a', 'c']);
  });

  it('coalesces a burst of changes into one onChange call; off() stops calls', async () => {
    const store = new Store(ValidatingWebhookConfigurationResource, { storage: memory });
    for (const n of ['x1', 'x2', 'x3']) await store.create({}, vwc(n));
    const cache = new ObjectCache<ValidatingWebhookConfiguration>(store, { signal: abort.signal });
    let calls = 0;
    const off = cache.onChange(() => calls++);
    await cache.whenSynced();
    await until(cache, () => calls > 0);
    // the initial list (three objects) was one burst
    expect(calls).toBe(1);
    expect(cache.generation).toBe(3);
    off();
    await store.create({}, vwc('x4'));
    // until() listens on its own; the removed listener is not called for this change
    await until(cache, () => cache.get('', 'x4') !== undefined);
    expect(calls).toBe(1);
  });

  it('holds namespaced objects by namespace and name, and looks namespaces up', async () => {
    const store = new Store(ConfigMap, { storage: memory });
    await store.create({ namespace: 'ns1' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns1' } });
    await store.create({ namespace: 'ns2' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns2' } });
    const cache = new ObjectCache<KubeObject>(store, { signal: abort.signal });
    await cache.whenSynced();
    expect(cache.get('ns1', 'cm')?.metadata.namespace).toBe('ns1');
    expect(cache.get('ns2', 'cm')?.metadata.namespace).toBe('ns2');
    expect(cache.get('', 'cm')).toBeUndefined();
    expect(cache.list().map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['ns1/cm', 'ns2/cm']);
    const byName: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } };
    expect(namespaceLookupOf({ get: (ns, n) => (ns === '' && n === 'prod' ? byName : undefined) }).getNamespace('prod')).toBe(byName);
  });

  it('a relist drops objects deleted while no watch was open, and keeps unchanged ones without a change', async () => {
    const store = new Store(ValidatingWebhookConfigurationResource, { storage: memory });
    await store.create({}, vwc('keep'));
    await store.create({}, vwc('gone'));
    // A source whose first watch ends at once with an ERROR (an expired watch): listAndWatch lists again.
    let lists = 0;
    let watches = 0;
    let release: () => void = () => {};
    const relisted = new Promise<void>((r) => {
      release = r;
    });
    const source: ListWatchSource = {
      list: async (ctx, opts) => {
        lists++;
        if (lists === 2) {
          await store.delete({}, 'gone');
          const res = await store.list(ctx, opts);
          release();
          return res;
        }
        return store.list(ctx, opts);
      },
      watch: (ctx, opts) => {
        watches++;
        if (watches === 1)
          return (async function* () {
            yield { type: 'ERROR', object: { apiVersion: 'v1', kind: 'Status', metadata: {} } };
          })() as never;
        return store.watch(ctx, opts);
      },
    };
    const cache = new ObjectCache<ValidatingWebhookConfiguration>(source, { signal: abort.signal });
    await cache.whenSynced();
    await relisted;
    await until(cache, () => cache.get('', 'gone') === undefined);
    expect(cache.list().map((o) => o.metadata.name)).toEqual(['keep']);
    // two adds, one removal; "keep" listed again was no change
    expect(cache.generation).toBe(3);
  });

  it('whenSynced rejects when stopped before the first list', async () => {
    const never: ListWatchSource = { list: () => new Promise(() => {}), watch: () => ({}) as never };
    const stop = new AbortController();
    const cache = new ObjectCache<KubeObject>(never, { signal: stop.signal });
    const synced = cache.whenSynced();
    stop.abort();
    await expect(synced).rejects.toThrow('object cache stopped before it synced');
    await expect(cache.whenSynced()).rejects.toThrow('object cache stopped before it synced');
  });
});

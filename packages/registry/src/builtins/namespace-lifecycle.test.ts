import { FakeClock, type StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { ConfigMap } from './configmap.ts';
import { NamespaceLifecycle } from './namespace-lifecycle.ts';
import { NamespaceRegistry } from './namespace-registry.ts';

let storage: MemoryStorage;
let namespaces: NamespaceRegistry;
let configMaps: Store<ConfigMap>;
beforeEach(async () => {
  storage = new MemoryStorage({ compaction: false });
  const clock = new FakeClock();
  namespaces = new NamespaceRegistry({ storage, clock });
  const lifecycle = new NamespaceLifecycle(namespaces.store);
  configMaps = new Store(ConfigMap, { storage, clock, beforeCreate: lifecycle.beforeCreate });
  await namespaces.store.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'live' } });
});
afterEach(() => storage.close());

const cm = (namespace: string, meta: Record<string, unknown> = { name: 'c' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, ...meta },
});
const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable('expected an error'),
    (e: unknown) => e as StatusError,
  );

describe('NamespaceLifecycle', () => {
  it('lets content into an active namespace', async () => {
    const { object } = await configMaps.create({ namespace: 'live' }, cm('live'));
    expect(object.metadata.namespace).toBe('live');
  });

  it('refuses content for a missing namespace with 404 for the namespace', async () => {
    const err = await fail(configMaps.create({ namespace: 'nowhere' }, cm('nowhere')));
    expect(err.code).toBe(404);
    expect(err.message).toBe('namespaces "nowhere" not found');
    expect(err.status.details).toEqual({ name: 'nowhere', kind: 'namespaces' });
    // Even under dryRun, as admission runs for it too.
    expect((await fail(configMaps.create({ namespace: 'nowhere' }, cm('nowhere'), { dryRun: true }))).code).toBe(404);
  });

  it('refuses content for a terminating namespace with 403 and the NamespaceTerminating cause', async () => {
    await namespaces.delete('live');
    const err = await fail(configMaps.create({ namespace: 'live' }, cm('live')));
    expect(err.code).toBe(403);
    expect(err.status.reason).toBe('Forbidden');
    expect(err.message).toBe('configmaps "c" is forbidden: unable to create new content in namespace live because it is being terminated');
    expect(err.status.details).toEqual({
      name: 'c',
      kind: 'configmaps',
      causes: [{ type: 'NamespaceTerminating', message: 'namespace live is being terminated', field: 'metadata.namespace' }],
    });
    const generated = await fail(configMaps.create({ namespace: 'live' }, cm('live', { generateName: 'gen-' })));
    expect(generated.message).toBe(
      'configmaps "gen-" is forbidden: unable to create new content in namespace live because it is being terminated',
    );
  });

  it('leaves updates of existing content alone', async () => {
    await configMaps.create({ namespace: 'live' }, cm('live'));
    await namespaces.delete('live');
    const { object } = await configMaps.update({ namespace: 'live' }, 'c', { ...cm('live'), data: { a: 'b' } });
    expect(object.data).toEqual({ a: 'b' });
  });
});

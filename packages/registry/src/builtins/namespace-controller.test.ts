import { FakeClock, isNotFound, type KubeObject } from '@kapi/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { BackendStorages } from '../test-support/backend-storages.ts';
import { backends } from '../test-support/backends.ts';
import { ConfigMap } from './configmap.ts';
import { Namespace } from './namespace.ts';
import { NamespaceController } from './namespace-controller.ts';
import { NamespaceLifecycle } from './namespace-lifecycle.ts';
import { NamespaceRegistry } from './namespace-registry.ts';
import { Secret } from './secret.ts';

const RETRY_MS = 1000;

describe.each(backends)('over %s', (_label, wrap) => {
  let storages: BackendStorages;
  let clock: FakeClock;
  let namespaces: NamespaceRegistry;
  let configMaps: Store<ConfigMap>;
  let secrets: Store<Secret>;
  let controller: NamespaceController;
  let errors: unknown[];

  beforeEach(async () => {
    storages = new BackendStorages(wrap);
    clock = new FakeClock();
    namespaces = new NamespaceRegistry({ storage: await storages.for(Namespace), clock });
    const lifecycle = new NamespaceLifecycle(namespaces.store);
    configMaps = new Store(ConfigMap, { storage: await storages.for(ConfigMap), clock, beforeCreate: lifecycle.beforeCreate });
    secrets = new Store(Secret, { storage: await storages.for(Secret), clock, beforeCreate: lifecycle.beforeCreate });
    errors = [];
    controller = new NamespaceController({
      namespaces,
      stores: [configMaps],
      clock,
      retryAfterMs: RETRY_MS,
      onError: (e) => errors.push(e),
    });
    controller.register(secrets);
    for (const name of ['doomed', 'other']) await namespaces.store.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  });
  afterEach(async () => {
    controller.stop();
    await storages.close();
  });

  const obj = (kind: string, namespace: string, name: string, meta: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind,
    metadata: { name, namespace, ...meta },
  });

  async function exists(get: () => Promise<unknown>): Promise<boolean> {
    try {
      await get();
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** Lets the controller's async work run, moving the fake clock a retry interval each round. */
  async function until(check: () => Promise<boolean>, advance = true): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (await check()) return;
      if (advance) clock.advance(RETRY_MS);
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error('condition not reached');
  }

  const namespaceGone = (name: string) => async () => !(await exists(() => namespaces.store.get({}, name)));

  describe('NamespaceController', () => {
    it('deletes a terminating namespace’s content, then the namespace', async () => {
      await configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'a'));
      await configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'b'));
      await secrets.create({ namespace: 'doomed' }, obj('Secret', 'doomed', 's'));
      await configMaps.create({ namespace: 'other' }, obj('ConfigMap', 'other', 'a'));
      controller.start();
      await namespaces.delete('doomed');
      await until(namespaceGone('doomed'), false);
      expect((await configMaps.list({ namespace: 'doomed' })).items).toEqual([]);
      expect((await secrets.list({ namespace: 'doomed' })).items).toEqual([]);
      // Other namespaces are untouched.
      expect((await configMaps.list({ namespace: 'other' })).items.map((c) => c.metadata.name)).toEqual(['a']);
      expect((await namespaces.store.get({}, 'other')).status?.phase).toBe('Active');
      expect(errors).toEqual([]);
    });

    it('finds namespaces that were terminating before it started', async () => {
      await configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'a'));
      await namespaces.delete('doomed');
      controller.start();
      await until(namespaceGone('doomed'), false);
    });

    it('keeps the namespace Terminating while an object’s finalizer holds it', async () => {
      await configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'held', { finalizers: ['example.com/hold'] }));
      await configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'free'));
      controller.start();
      await namespaces.delete('doomed');
      await until(async () => !(await exists(() => configMaps.get({ namespace: 'doomed' }, 'free'))));
      // Several retries later the held object is terminating and the namespace is still there.
      for (let i = 0; i < 5; i++) {
        clock.advance(RETRY_MS);
        await new Promise((r) => setTimeout(r, 2));
      }
      const held = await configMaps.get({ namespace: 'doomed' }, 'held');
      expect(held.metadata.deletionTimestamp).toBeDefined();
      const ns = await namespaces.store.get({}, 'doomed');
      expect(ns.status?.phase).toBe('Terminating');
      expect(ns.spec?.finalizers).toEqual(['kubernetes']);
      const now = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
      expect(ns.status?.conditions?.map(({ lastTransitionTime: _t, ...c }) => c)).toEqual([
        {
          type: 'NamespaceDeletionDiscoveryFailure',
          status: 'False',
          reason: 'ResourcesDiscovered',
          message: 'All resources successfully discovered',
        },
        {
          type: 'NamespaceDeletionGVParsingFailure',
          status: 'False',
          reason: 'ParsedGroupVersions',
          message: 'All legacy kube types successfully parsed',
        },
        {
          type: 'NamespaceDeletionContentFailure',
          status: 'False',
          reason: 'ContentDeleted',
          message: 'All content successfully deleted, may be waiting on finalization',
        },
        {
          type: 'NamespaceContentRemaining',
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: 'Some resources are remaining: configmaps. has 1 resource instances',
        },
        {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
        },
      ]);
      for (const c of ns.status?.conditions ?? []) expect((c.lastTransitionTime ?? '') <= now && !!c.lastTransitionTime).toBe(true);
      // Nothing new may be created meanwhile.
      await expect(configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'late'))).rejects.toMatchObject({ code: 403 });

      const removed = await configMaps.patch({ namespace: 'doomed' }, 'held', { metadata: { finalizers: null } }, 'merge');
      expect(removed.deleted).toBe(true);
      await until(namespaceGone('doomed'));
      expect(errors).toEqual([]);
    });

    it('leaves other spec.finalizers to their owners and then lets the namespace go', async () => {
      await namespaces.finalize('doomed', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'doomed' },
        spec: { finalizers: ['kubernetes', 'example.com/cleanup'] },
      });
      controller.start();
      await namespaces.delete('doomed');
      await until(async () => (await namespaces.store.get({}, 'doomed')).spec?.finalizers?.length === 1, false);
      expect((await namespaces.store.get({}, 'doomed')).spec?.finalizers).toEqual(['example.com/cleanup']);
      // The last pass found nothing left: every condition is the all-is-well one.
      const conditions = (await namespaces.store.get({}, 'doomed')).status?.conditions ?? [];
      expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
        ['NamespaceDeletionGVParsingFailure', 'False', 'ParsedGroupVersions'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
        ['NamespaceContentRemaining', 'False', 'ContentRemoved'],
        ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers'],
      ]);
      const current = await namespaces.store.get({}, 'doomed');
      const res = await namespaces.finalize('doomed', { ...current, spec: { finalizers: [] } });
      expect(res.deleted).toBe(true);
    });

    it('records a Store that fails in NamespaceDeletionContentFailure, deletes the rest and retries', async () => {
      await configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'a'));
      await secrets.create({ namespace: 'doomed' }, obj('Secret', 'doomed', 's'));
      const deleteCollection = secrets.deleteCollection.bind(secrets);
      secrets.deleteCollection = () => Promise.reject(new Error('storage is down'));
      controller.start();
      await namespaces.delete('doomed');
      const failure = async () =>
        (await namespaces.store.get({}, 'doomed')).status?.conditions?.find((c) => c.type === 'NamespaceDeletionContentFailure');
      await until(async () => (await failure())?.status === 'True', false);
      expect(await failure()).toMatchObject({
        reason: 'ContentDeletionFailed',
        message: 'Failed to delete all resource types, 1 remaining: storage is down',
      });
      expect((await configMaps.list({ namespace: 'doomed' })).items).toEqual([]);
      expect(errors).toContainEqual(new Error('storage is down'));
      secrets.deleteCollection = deleteCollection;
      await until(namespaceGone('doomed'));
    });

    it('does nothing once stopped', async () => {
      controller.start();
      controller.stop();
      await namespaces.delete('doomed');
      for (let i = 0; i < 3; i++) {
        clock.advance(RETRY_MS);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect((await namespaces.store.get({}, 'doomed')).status?.phase).toBe('Terminating');
      expect(controller.running).toBe(false);
    });

    it('leaves an unregistered Store’s objects alone', async () => {
      await configMaps.create({ namespace: 'doomed' }, obj('ConfigMap', 'doomed', 'a'));
      await secrets.create({ namespace: 'doomed' }, obj('Secret', 'doomed', 's'));
      controller.unregister(secrets);
      controller.start();
      await namespaces.delete('doomed');
      await until(namespaceGone('doomed'), false);
      expect((await configMaps.list({ namespace: 'doomed' })).items).toEqual([]);
      expect((await secrets.list({ namespace: 'doomed' })).items.map((s) => s.metadata.name)).toEqual(['s']);
    });

    it('refuses a cluster-scoped Store', () => {
      expect(() => controller.register(namespaces.store as unknown as Store)).toThrow('namespaces is cluster-scoped');
    });
  });
});

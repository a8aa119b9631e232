import { FakeClock, isNotFound } from '@kapi/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
import { BackendStorages } from '../test-support/backend-storages.ts';
import { backends } from '../test-support/backends.ts';
import { Namespace } from './namespace.ts';
import { NamespaceLifecycle } from './namespace-lifecycle.ts';
import { NamespaceRegistry } from './namespace-registry.ts';
import { ServiceAccount } from './service-account.ts';
import { ServiceAccountsController } from './service-accounts-controller.ts';

const RETRY_MS = 1000;

describe.each(backends)('over %s', (_label, wrap) => {
  let storages: BackendStorages;
  let clock: FakeClock;
  let namespaces: NamespaceRegistry;
  let serviceAccounts: Store<ServiceAccount>;
  let controller: ServiceAccountsController;
  let errors: unknown[];

  beforeEach(async () => {
    storages = new BackendStorages(wrap);
    clock = new FakeClock();
    namespaces = new NamespaceRegistry({ storage: await storages.for(Namespace), clock });
    const lifecycle = new NamespaceLifecycle(namespaces.store, { clock });
    serviceAccounts = new Store(ServiceAccount, {
      storage: await storages.for(ServiceAccount),
      clock,
      beforeCreate: lifecycle.beforeCreate,
    });
    errors = [];
    controller = new ServiceAccountsController({
      namespaces: namespaces.store,
      serviceAccounts,
      clock,
      retryAfterMs: RETRY_MS,
      onError: (e) => errors.push(e),
    });
  });
  afterEach(async () => {
    controller.stop();
    await storages.close();
  });

  const createNamespace = (name: string) => namespaces.store.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

  async function saExists(namespace: string, name = 'default'): Promise<boolean> {
    try {
      await serviceAccounts.get({ namespace }, name);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** Lets the controller's async work run (no clock movement: its reactions come from watch events, not retries). */
  async function until(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error('condition not reached');
  }
  /** A few rounds of the event loop in which the controller could act. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 2));
  };

  describe('ServiceAccountsController', () => {
    it('creates default in the namespaces there at start and in each new one', async () => {
      await createNamespace('before');
      controller.start();
      await until(() => saExists('before'));
      await createNamespace('after');
      await until(() => saExists('after'));
      const sa = await serviceAccounts.get({ namespace: 'after' }, 'default');
      expect(sa).toMatchObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'after' } });
      expect(errors).toEqual([]);
    });

    it('re-creates default when it is deleted (a new uid), and leaves other accounts alone', async () => {
      await createNamespace('ns');
      controller.start();
      await until(() => saExists('ns'));
      const before = await serviceAccounts.get({ namespace: 'ns' }, 'default');
      await serviceAccounts.create({ namespace: 'ns' }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'other' } });
      await serviceAccounts.delete({ namespace: 'ns' }, 'other');
      await serviceAccounts.delete({ namespace: 'ns' }, 'default');
      await until(() => saExists('ns'));
      expect((await serviceAccounts.get({ namespace: 'ns' }, 'default')).metadata.uid).not.toBe(before.metadata.uid);
      await settle();
      expect(await saExists('ns', 'other')).toBe(false);
      expect(errors).toEqual([]);
    });

    it('creates nothing in a terminating namespace, at start or when its default is deleted', async () => {
      await createNamespace('doomed');
      await serviceAccounts.create({ namespace: 'doomed' }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
      await createNamespace('gone-before');
      await namespaces.delete('gone-before');
      controller.start();
      await namespaces.delete('doomed');
      // No namespace controller runs here: the namespace stays Terminating with its content.
      expect((await namespaces.store.get({}, 'doomed')).status?.phase).toBe('Terminating');
      await serviceAccounts.delete({ namespace: 'doomed' }, 'default');
      await createNamespace('live');
      await until(() => saExists('live'));
      await settle();
      expect(await saExists('doomed')).toBe(false);
      expect(await saExists('gone-before')).toBe(false);
      expect(errors).toEqual([]);
    });

    it('takes an account created meanwhile (AlreadyExists) and a namespace terminating meanwhile (403) as done', async () => {
      await createNamespace('raced');
      await createNamespace('dying');
      const create = serviceAccounts.create.bind(serviceAccounts);
      // Someone else creates default, or deletes the namespace, between the controller's get and its create.
      serviceAccounts.create = async (ctx, input, opts) => {
        if (ctx.namespace === 'raced') await create(ctx, input, opts);
        if (ctx.namespace === 'dying') await namespaces.delete('dying');
        return create(ctx, input, opts);
      };
      controller.start();
      await until(async () => (await namespaces.store.get({}, 'dying')).metadata.deletionTimestamp !== undefined);
      await until(() => saExists('raced'));
      await settle();
      clock.advance(RETRY_MS);
      await settle();
      expect(await saExists('dying')).toBe(false);
      expect(errors).toEqual([]);
    });

    it('retries a failed create after retryAfterMs', async () => {
      await createNamespace('flaky');
      const create = serviceAccounts.create.bind(serviceAccounts);
      let fail = true;
      serviceAccounts.create = (ctx, input, opts) => (fail ? Promise.reject(new Error('storage is down')) : create(ctx, input, opts));
      controller.start();
      await until(async () => errors.length > 0);
      fail = false;
      await settle();
      expect(await saExists('flaky')).toBe(false);
      clock.advance(RETRY_MS);
      await until(() => saExists('flaky'));
      // Queued twice at start (the namespace list and the service-account list each look at every namespace).
      expect(new Set(errors.map((e) => (e as Error).message))).toEqual(new Set(['storage is down']));
    });

    it('stops: nothing is created after stop()', async () => {
      controller.start();
      await settle();
      controller.stop();
      await createNamespace('late');
      await settle();
      expect(await saExists('late')).toBe(false);
    });
  });
});

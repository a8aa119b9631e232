import { FakeClock, isNotFound, type KubeObject, type OwnerReference } from '@kapi/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import type { ResourceDefinition } from '../resource-definition.ts';
import { Store } from '../store/store.ts';
import type { RequestContext, StoreDeleteOptions, StoreListOptions } from '../store/types.ts';
import { BackendStorages } from '../test-support/backend-storages.ts';
import { backends } from '../test-support/backends.ts';
import { ConfigMap } from './configmap.ts';
import { Event } from './event.ts';
import { GarbageCollector, type ServedResources } from './garbage-collector.ts';
import { Secret } from './secret.ts';

/** A cluster-scoped kind, to own namespaced objects. */
const Tenant = defineResource({
  group: 'example.kapi.dev',
  kind: 'Tenant',
  plural: 'tenants',
  namespaced: false,
  versions: [{ name: 'v1', schema: z.object({}) }],
});

const ns = 'default';

/** Served kinds that tests add and remove, as a server's are. */
class Served implements ServedResources {
  readonly #stores = new Map<string, Store>();
  readonly #listeners = new Set<(c: { type: 'Added' | 'Removed'; definition: ResourceDefinition }) => void>();
  add(store: Store): void {
    const def = store.definition;
    this.#stores.set(def.group ? `${def.plural}.${def.group}` : def.plural, store);
    for (const l of this.#listeners) l({ type: 'Added', definition: def });
  }
  remove(store: Store): void {
    const def = store.definition;
    this.#stores.delete(def.group ? `${def.plural}.${def.group}` : def.plural);
    for (const l of this.#listeners) l({ type: 'Removed', definition: def });
  }
  definitions(): readonly ResourceDefinition[] {
    return [...this.#stores.values()].map((s) => s.definition);
  }
  store(resource: string): Store | undefined {
    return this.#stores.get(resource);
  }
  onResourcesChanged(l: (c: { type: 'Added' | 'Removed'; definition: ResourceDefinition }) => void): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }
}

describe.each(backends)('garbage collector over %s', (_label, wrap) => {
  let storages: BackendStorages;
  let clock: FakeClock;
  let configMaps: Store;
  let secrets: Store;
  let tenants: Store;
  let served: Served;
  let gc: GarbageCollector;
  let errors: unknown[];
  let warnings: string[];

  beforeEach(async () => {
    storages = new BackendStorages(wrap);
    clock = new FakeClock();
    configMaps = new Store(ConfigMap, { storage: await storages.for(ConfigMap), clock });
    secrets = new Store(Secret, { storage: await storages.for(Secret), clock });
    tenants = new Store(Tenant, { storage: await storages.for(Tenant), clock });
    served = new Served();
    for (const s of [configMaps, secrets, tenants]) served.add(s);
    errors = [];
    warnings = [];
    gc = new GarbageCollector({
      resources: served,
      clock,
      retryAfterMs: 1000,
      onError: (e) => errors.push(e),
      recordWarning: (who, reason) => warnings.push(`${who.namespace}/${who.name}: ${reason}`),
    });
    gc.start();
  });
  afterEach(async () => {
    gc.stop();
    await storages.close();
    expect(errors).toEqual([]);
  });

  const ref = (owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference => ({
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    ...extra,
  });

  const cm = async (name: string, owners: OwnerReference[] = [], namespace = ns): Promise<KubeObject> =>
    (
      await configMaps.create(
        { namespace },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ownerReferences: owners } },
      )
    ).object;
  const secret = async (name: string, owners: OwnerReference[] = []): Promise<KubeObject> =>
    (
      await secrets.create(
        { namespace: ns },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns, ownerReferences: owners } },
      )
    ).object;
  const tenant = async (name: string, owners: OwnerReference[] = []): Promise<KubeObject> =>
    (await tenants.create({}, { apiVersion: 'example.kapi.dev/v1', kind: 'Tenant', metadata: { name, ownerReferences: owners } })).object;

  async function find(store: Store, name: string, namespace: string | undefined = ns): Promise<KubeObject | undefined> {
    try {
      return await store.get(store.definition.namespaced ? { namespace } : {}, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Polls (on the event loop, advancing the fake clock past retries) until `check` holds. */
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if (await check()) return;
      await gc.idle();
      await new Promise((r) => setImmediate(r));
      if (i % 20 === 19) clock.advance(1000);
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  const gone = (store: Store, name: string, namespace?: string) => async () => (await find(store, name, namespace)) === undefined;

  /** Gives the collector time to act (and retry) on what it has; for outcomes that must not happen. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 60; i++) {
      await gc.idle();
      await new Promise((r) => setImmediate(r));
      if (i % 20 === 19) clock.advance(1000);
    }
  }

  it('background: a dependent goes after its only owner', async () => {
    const owner = await cm('owner');
    await secret('dep', [ref(owner)]);
    await settle();
    expect(await find(secrets, 'dep')).toBeDefined();
    await configMaps.delete({ namespace: ns }, 'owner');
    await until(gone(secrets, 'dep'), 'the dependent is deleted');
  });

  it('leaves events alone, as kube ignores them (one object under core and events.k8s.io, never an owner)', async () => {
    const events = new Store(Event, { storage: await storages.for(Event), clock });
    served.add(events);
    await settle();
    const owner = await cm('owner');
    await events.create(
      { namespace: ns },
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'ev', namespace: ns, ownerReferences: [ref(owner)] },
        involvedObject: { kind: 'ConfigMap', name: 'owner', namespace: ns },
        reason: 'Test',
        message: 'owned',
        type: 'Normal',
      },
    );
    const dep = await secret('dep', [ref(owner)]);
    await configMaps.delete({ namespace: ns }, 'owner');
    await until(gone(secrets, dep.metadata.name ?? ''), 'the secret is deleted');
    await settle();
    expect(await find(events, 'ev')).toBeDefined();
  });

  it('background: a dependent with another live owner only loses the dead reference', async () => {
    const a = await cm('a');
    const b = await cm('b');
    await secret('dep', [ref(a), ref(b)]);
    await configMaps.delete({ namespace: ns }, 'a');
    await until(async () => (await find(secrets, 'dep'))?.metadata.ownerReferences?.length === 1, 'the reference to a is removed');
    expect((await find(secrets, 'dep'))?.metadata.ownerReferences?.map((r) => r.name)).toEqual(['b']);
    await configMaps.delete({ namespace: ns }, 'b');
    await until(gone(secrets, 'dep'), 'the dependent goes with its last owner');
  });

  it('a dependent whose owner never existed goes; one whose owner was recreated under the name with a new uid goes too', async () => {
    await secret('orphaned', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never', uid: 'no-such-uid' }]);
    await until(gone(secrets, 'orphaned'), 'a dependent of a missing owner is deleted');

    const first = await cm('owner');
    await secret('dep', [ref(first)]);
    await configMaps.delete({ namespace: ns }, 'owner');
    const second = await cm('owner');
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    await until(gone(secrets, 'dep'), 'the dependent of the first owner is deleted');
    // The new owner's own dependent stays.
    await secret('dep2', [ref(second)]);
    await settle();
    expect(await find(secrets, 'dep2')).toBeDefined();
  });

  it('foreground: dependents with blockOwnerDeletion go first, then the owner', async () => {
    const owner = await cm('owner', [], ns);
    await secret('blocker', [ref(owner, { blockOwnerDeletion: true })]);
    await secret('other', [ref(owner)]);
    // A finalizer keeps the blocking dependent terminating for a while: the owner waits for it.
    await secrets.update({ namespace: ns }, 'blocker', {
      ...(await find(secrets, 'blocker')),
      metadata: { ...(await find(secrets, 'blocker'))?.metadata, finalizers: ['example.com/hold'] },
    });
    const res = await configMaps.delete({ namespace: ns }, 'owner', { propagationPolicy: 'Foreground' });
    expect(res.deleted).toBe(false);
    expect(res.object.metadata.finalizers).toEqual(['foregroundDeletion']);
    await until(async () => !!(await find(secrets, 'blocker'))?.metadata.deletionTimestamp, 'the blocking dependent is being deleted');
    await until(gone(secrets, 'other'), 'the non-blocking dependent is deleted');
    await settle();
    expect((await find(configMaps, 'owner'))?.metadata.finalizers).toEqual(['foregroundDeletion']);
    const blocker = (await find(secrets, 'blocker')) as KubeObject;
    await secrets.update({ namespace: ns }, 'blocker', { ...blocker, metadata: { ...blocker.metadata, finalizers: [] } });
    await until(gone(configMaps, 'owner'), 'the owner goes once its blocking dependent is gone');
  });

  it('started on a foreground deletion under way: the owner keeps its finalizer until its blocking dependents, of any kind, are gone', async () => {
    gc.stop();
    const owner = await cm('owner');
    const dep = await secret('dep', [ref(owner, { blockOwnerDeletion: true })]);
    await secrets.update({ namespace: ns }, 'dep', { ...dep, metadata: { ...dep.metadata, finalizers: ['example.com/hold'] } });
    await configMaps.delete({ namespace: ns }, 'owner', { propagationPolicy: 'Foreground' });
    // Secrets are listed late: the owner is in the graph well before its dependent.
    let release = () => {};
    const late = new Promise<void>((r) => {
      release = r;
    });
    class LateStore extends Store {
      override async list(ctx: RequestContext, opts: StoreListOptions = {}) {
        await late;
        return super.list(ctx, opts);
      }
    }
    const lateSecrets = new LateStore(Secret, { storage: await storages.for(Secret), clock });
    served.remove(secrets);
    served.add(lateSecrets);
    gc = new GarbageCollector({ resources: served, clock, retryAfterMs: 1000, onError: (e) => errors.push(e) });
    gc.start();
    // The collector's work waits for the graph (gc.idle() would too): a few turns of the event loop, then the list.
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    release();
    await until(async () => !!(await find(secrets, 'dep'))?.metadata.deletionTimestamp, 'the dependent is being deleted');
    await settle();
    expect((await find(configMaps, 'owner'))?.metadata.finalizers).toEqual(['foregroundDeletion']);
    const held = (await find(secrets, 'dep')) as KubeObject;
    await secrets.update({ namespace: ns }, 'dep', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    await until(gone(configMaps, 'owner'), 'the owner goes after its dependent');
  });

  it('a kind whose first list does not come holds the work back 30 s at most', async () => {
    gc.stop();
    const owner = await tenant('owner');
    await cm('dep', [ref(owner)]);
    await tenants.delete({}, 'owner');
    class StuckStore extends Store {
      override list(): never {
        throw new Error('the backend is away');
      }
    }
    served.remove(secrets);
    served.add(new StuckStore(Secret, { storage: await storages.for(Secret), clock }));
    gc = new GarbageCollector({ resources: served, clock, retryAfterMs: 60_000, onError: (e) => errors.push(e) });
    gc.start();
    const turns = async () => {
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    };
    await turns();
    expect(await find(configMaps, 'dep')).toBeDefined();
    clock.advance(30_000);
    await until(gone(configMaps, 'dep'), 'the dependent is deleted once the wait is over');
    expect(errors.map((e) => (e as Error).message)).toEqual(['the backend is away']);
    errors.length = 0;
  });

  it('foreground: a dependent with a live second owner loses the reference and stays; the owner goes', async () => {
    const owner = await cm('owner');
    const keeper = await cm('keeper');
    await secret('shared', [ref(owner, { blockOwnerDeletion: true }), ref(keeper)]);
    await configMaps.delete({ namespace: ns }, 'owner', { propagationPolicy: 'Foreground' });
    await until(gone(configMaps, 'owner'), 'the owner is deleted');
    expect((await find(secrets, 'shared'))?.metadata.ownerReferences?.map((r) => r.name)).toEqual(['keeper']);
  });

  it('orphan: dependents lose the reference and stay; the orphan finalizer goes and the owner with it', async () => {
    const owner = await cm('owner');
    await secret('a', [ref(owner, { blockOwnerDeletion: true })]);
    await secret('b', [ref(owner), { apiVersion: 'v1', kind: 'ConfigMap', name: 'keeper', uid: (await cm('keeper')).metadata.uid ?? '' }]);
    const res = await configMaps.delete({ namespace: ns }, 'owner', { propagationPolicy: 'Orphan' });
    expect(res.object.metadata.finalizers).toEqual(['orphan']);
    await until(gone(configMaps, 'owner'), 'the owner is deleted');
    expect((await find(secrets, 'a'))?.metadata.ownerReferences).toBeUndefined();
    expect((await find(secrets, 'b'))?.metadata.ownerReferences?.map((r) => r.name)).toEqual(['keeper']);
    await settle();
    expect(await find(secrets, 'a')).toBeDefined();
  });

  it('a cluster-scoped owner of namespaced dependents in two namespaces', async () => {
    const t1 = await tenant('t1');
    await cm('in-default', [ref(t1)]);
    await cm('in-other', [ref(t1)], 'other');
    await settle();
    expect(await find(configMaps, 'in-other', 'other')).toBeDefined();
    await tenants.delete({}, 't1');
    await until(gone(configMaps, 'in-default'), 'the dependent in default is deleted');
    await until(gone(configMaps, 'in-other', 'other'), 'the dependent in other is deleted');
  });

  it('a namespaced owner in another namespace counts as absent (OwnerRefInvalidNamespace); a cluster-scoped dependent of a namespaced owner is left alone', async () => {
    const owner = await cm('owner', [], 'other');
    await secret('cross', [ref(owner)]);
    await until(gone(secrets, 'cross'), 'the dependent naming an owner of another namespace is deleted');
    expect(await find(configMaps, 'owner', 'other')).toBeDefined();
    expect(warnings).toContain(`${ns}/cross: OwnerRefInvalidNamespace`);

    await tenant('odd', [ref(owner)]);
    await settle();
    expect(await find(tenants, 'odd', undefined)).toBeDefined();
    expect(warnings).toContain('/odd: OwnerRefInvalidNamespace');
  });

  it('a chain of three levels goes with its root, in the foreground from the top', async () => {
    const root = await tenant('root');
    const mid = await cm('mid', [ref(root, { blockOwnerDeletion: true })]);
    const leaf = await secret('leaf', [ref(mid, { blockOwnerDeletion: true })]);
    // The leaf holds on: the middle waits in the foreground for it, and the root for the middle.
    await secrets.update({ namespace: ns }, 'leaf', { ...leaf, metadata: { ...leaf.metadata, finalizers: ['example.com/hold'] } });
    await tenants.delete({}, 'root', { propagationPolicy: 'Foreground' });
    await until(async () => !!(await find(secrets, 'leaf'))?.metadata.deletionTimestamp, 'the leaf is being deleted');
    expect((await find(configMaps, 'mid'))?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(await find(tenants, 'root', undefined)).toBeDefined();
    const held = (await find(secrets, 'leaf')) as KubeObject;
    await secrets.update({ namespace: ns }, 'leaf', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    await until(gone(configMaps, 'mid'), 'the middle goes after the leaf');
    await until(gone(tenants, 'root', undefined), 'the root goes last');

    // In the background, the same chain goes level by level.
    const r2 = await tenant('r2');
    const m2 = await cm('m2', [ref(r2)]);
    await secret('l2', [ref(m2)]);
    await tenants.delete({}, 'r2');
    await until(gone(secrets, 'l2'), 'the leaf goes after its parent');
    expect(await find(configMaps, 'm2')).toBeUndefined();
  });

  it('a delete decided on a stale read: a dependent that gained a live owner meanwhile stays; one changed otherwise still goes', async () => {
    /** Secrets whose first delete of a name is preceded by `before` (another writer racing the collector). */
    class RacingStore extends Store {
      before: ((name: string) => Promise<void>) | undefined;
      readonly raced = new Set<string>();
      override async delete(ctx: RequestContext, name: string, opts: StoreDeleteOptions = {}) {
        if (!this.raced.has(name)) {
          this.raced.add(name);
          await this.before?.(name);
        }
        return super.delete(ctx, name, opts);
      }
    }
    const racing = new RacingStore(Secret, { storage: await storages.for(Secret), clock });
    served.remove(secrets);
    served.add(racing);
    const dead = await cm('dead');
    const live = await cm('live');
    await secret('adopted', [ref(dead)]);
    await secret('relabelled', [ref(dead)]);
    await settle();
    const change = async (name: string, f: (o: KubeObject) => KubeObject) => {
      await racing.update({ namespace: ns }, name, f((await find(racing, name)) as KubeObject));
    };
    racing.before = (name) =>
      change(name, (o) =>
        name === 'adopted'
          ? { ...o, metadata: { ...o.metadata, ownerReferences: [...(o.metadata.ownerReferences ?? []), ref(live)] } }
          : { ...o, metadata: { ...o.metadata, labels: { touched: 'yes' } } },
      );
    await configMaps.delete({ namespace: ns }, 'dead');
    await until(
      async () => (await find(racing, 'adopted'))?.metadata.ownerReferences?.map((r) => r.name).join() === 'live',
      'the adopted dependent keeps only its live owner',
    );
    await until(gone(racing, 'relabelled'), 'the relabelled dependent is deleted');
    expect(racing.raced).toEqual(new Set(['adopted', 'relabelled']));
    // The raced delete of the adopted one is a conflict the collector looks again after; nothing else failed.
    expect(errors.map((e) => (e as Error).message)).toEqual([expect.stringContaining('the ResourceVersion in the precondition')]);
    errors.length = 0;
  });

  it('an owner of a kind not served is waited for; a kind added at run time joins the graph', async () => {
    const Gadget = defineResource({
      group: 'example.kapi.dev',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
      versions: [{ name: 'v1', schema: z.object({}) }],
    });
    const gadgets = new Store(Gadget, { storage: await storages.for(Gadget), clock });
    const gadget = async (name: string) =>
      (await gadgets.create({ namespace: ns }, { apiVersion: 'example.kapi.dev/v1', kind: 'Gadget', metadata: { name, namespace: ns } }))
        .object;
    const g = await gadget('g');
    await secret('dep', [ref(g)]);
    await settle();
    expect(await find(secrets, 'dep')).toBeDefined();
    served.add(gadgets);
    await settle();
    expect(await find(secrets, 'dep')).toBeDefined();
    await gadgets.delete({ namespace: ns }, 'g');
    await until(gone(secrets, 'dep'), 'the dependent of a gadget is deleted once gadgets are watched');

    // Removed: its informer stops; a gadget's dependent is left until the kind is back.
    served.remove(gadgets);
    const g2 = await gadget('g2');
    await secret('dep2', [ref(g2)]);
    await gadgets.delete({ namespace: ns }, 'g2');
    await settle();
    expect(await find(secrets, 'dep2')).toBeDefined();
    served.add(gadgets);
    await until(gone(secrets, 'dep2'), 'the dependent goes once the kind is served again');
  });
});

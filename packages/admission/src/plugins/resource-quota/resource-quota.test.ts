import { FakeClock, type KubeObject, StatusError } from '@kapi/apimachinery';
import { ConfigMap, defineResource, type ResourceDefinition, Secret, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { AdmissionAttributes } from '../../attributes.ts';
import { ResourceQuota } from './resource-quota.ts';
import { ResourceQuotaAdmission, type ResourceQuotaAdmissionOptions } from './resource-quota-admission.ts';
import { parseResourceQuotaConfiguration } from './resource-quota-configuration.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ spec: z.object({ size: z.number() }).optional() }) }],
});

const NS = 'team-a';

/** One API server's stores over `memory`, and quota admission started on them. */
class Server {
  readonly stores = new Map<string, Store>();
  readonly quota: ResourceQuotaAdmission;

  constructor(memory: MemoryStorage, clock: FakeClock, options: ResourceQuotaAdmissionOptions = {}) {
    const defs: [string, ResourceDefinition][] = [
      ['resourcequotas', ResourceQuota as unknown as ResourceDefinition],
      ['configmaps', ConfigMap as unknown as ResourceDefinition],
      ['secrets', Secret as unknown as ResourceDefinition],
      ['widgets.example.kapi.dev', Widget as unknown as ResourceDefinition],
    ];
    for (const [name, def] of defs) this.stores.set(name, new Store(def, { storage: memory, clock }));
    this.quota = new ResourceQuotaAdmission({ clock, resyncPeriodMs: 60_000, onError: () => {}, ...options });
  }

  start(): Promise<void> {
    return this.quota.start({ store: (r) => this.stores.get(r) });
  }

  store(name: string): Store {
    return this.stores.get(name) as Store;
  }

  /** A create as server-core runs it: the plugin validates inside the Store's create, on the final object. */
  create(resource: string, obj: KubeObject, opts: { dryRun?: boolean } = {}): Promise<KubeObject> {
    const [plural = '', group = ''] = [resource.split('.')[0], resource.split('.').slice(1).join('.')];
    const apiVersion = obj.apiVersion ?? '';
    const [apiGroup, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const validate = (o: KubeObject) => {
      const attrs: AdmissionAttributes = {
        operation: 'CREATE',
        kind: { group: apiGroup ?? '', version: version ?? '', kind: obj.kind ?? '' },
        resource: { group, version: version ?? '', resource: plural },
        subresource: '',
        namespace: NS,
        name: o.metadata.name ?? '',
        object: o,
        oldObject: null,
        dryRun: opts.dryRun ?? false,
        userInfo: { name: 'alice', groups: ['system:authenticated'] },
      };
      return this.quota.plugin.validate(attrs);
    };
    return this.store(resource)
      .create({ namespace: NS }, obj, { dryRun: opts.dryRun ?? false, admission: { validate } })
      .then((r) => r.object);
  }

  async quotaObject(name: string): Promise<ResourceQuota> {
    return (await this.store('resourcequotas').get({ namespace: NS }, name)) as ResourceQuota;
  }
}

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } });
const widget = (name: string): KubeObject => ({ apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name, namespace: NS } });
const quota = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: NS },
  spec,
});

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe('ResourceQuota, the kind', () => {
  let memory: MemoryStorage;
  let store: Store;
  beforeEach(() => {
    memory = new MemoryStorage({ compaction: false });
    store = new Store(ResourceQuota as unknown as ResourceDefinition, { storage: memory, clock: new FakeClock() });
  });
  afterEach(() => memory.close());

  it('is created with an empty status and its quantities in canonical form', async () => {
    const { object } = await store.create(
      { namespace: NS },
      {
        ...quota('q', { hard: { 'count/secrets': 1000, configmaps: '10', 'requests.memory': '2048Mi', 'requests.cpu': '0.5' } }),
        status: { hard: { pods: '1' } },
      },
    );
    expect(object.spec).toEqual({ hard: { 'count/secrets': '1k', configmaps: '10', 'requests.memory': '2Gi', 'requests.cpu': '500m' } });
    expect(object.status).toEqual({});
  });

  it("refuses names and quantities as kube's ValidateResourceQuota does", async () => {
    const err = await rejection(
      store.create({ namespace: NS }, quota('q', { hard: { foo: '1', 'count/configmaps': '-1', configmaps: '1.5', 'count/x': 'abc' } })),
    );
    expect(err.code).toBe(422);
    expect(err.message).toContain('ResourceQuota "q" is invalid: [');
    for (const part of [
      'spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
      'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota',
      'spec.hard[count/configmaps]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.hard[configmaps]: Invalid value: "1500m": must be an integer',
      `spec.hard[count/x]: Invalid value: "abc": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    ])
      expect(err.message).toContain(part);
  });

  it('checks scopes and scope selectors, and keeps the scopes immutable', async () => {
    const bad = await rejection(
      store.create({ namespace: NS }, quota('q', { hard: { configmaps: '1' }, scopes: ['Terminating', 'NotTerminating', 'Nope'] })),
    );
    expect(bad.message).toContain('spec.scopes: Invalid value: ["Terminating","NotTerminating","Nope"]: unsupported scope');
    expect(bad.message).toContain('unsupported scope applied to resource');
    expect(bad.message).toContain('conflicting scopes');
    const selector = await rejection(
      store.create(
        { namespace: NS },
        quota('q', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }),
      ),
    );
    expect(selector.message).toBe(
      "ResourceQuota \"q\" is invalid: spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
    );
    const { object } = await store.create({ namespace: NS }, quota('q', { hard: { pods: '1' }, scopes: ['BestEffort'] }));
    const changed = await rejection(
      store.update({ namespace: NS }, 'q', { ...object, spec: { hard: { pods: '2' }, scopes: ['NotBestEffort'] } }),
    );
    expect(changed.message).toBe('ResourceQuota "q" is invalid: spec.scopes: Invalid value: ["NotBestEffort"]: field is immutable');
  });

  it('lets only the status subresource change status, and an update of the main resource keep it', async () => {
    const { object } = await store.create({ namespace: NS }, quota('q', { hard: { secrets: '3' } }));
    const { object: withStatus } = await store.update(
      { namespace: NS },
      'q',
      { ...object, status: { hard: { secrets: '3' }, used: { secrets: '1' } } },
      {
        subresource: 'status',
      },
    );
    expect(withStatus.status).toEqual({ hard: { secrets: '3' }, used: { secrets: '1' } });
    const { object: updated } = await store.update({ namespace: NS }, 'q', { ...withStatus, spec: { hard: { secrets: '4' } }, status: {} });
    expect(updated.spec).toEqual({ hard: { secrets: '4' } });
    expect(updated.status).toEqual({ hard: { secrets: '3' }, used: { secrets: '1' } });
  });
});

describe('ResourceQuota admission and controller', () => {
  let memory: MemoryStorage;
  let clock: FakeClock;
  let server: Server;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    clock = new FakeClock();
    server = new Server(memory, clock);
    await server.start();
  });
  afterEach(() => {
    server.quota.stop();
    memory.close();
  });

  /** Waits until the controller has written the quota's usage. */
  async function synced(name: string, used: Record<string, string>): Promise<ResourceQuota> {
    await vi.waitFor(async () => expect((await server.quotaObject(name)).status?.used).toEqual(used));
    return server.quotaObject(name);
  }

  it('the controller sets status.hard from spec.hard and counts what is there', async () => {
    await server.create('configmaps', configMap('c1'));
    await server.create('configmaps', configMap('c2'));
    await server
      .store('resourcequotas')
      .create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '5', configmaps: '4', cpu: '2' } }));
    const q = await synced('q', { 'count/configmaps': '2', configmaps: '2' });
    expect(q.status?.hard).toEqual({ 'count/configmaps': '5', configmaps: '4', cpu: '2' });
  });

  it("refuses a create past the quota with kube's message, and charges those it admits", async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '2' } }));
    await synced('q', { 'count/configmaps': '0' });
    await server.create('configmaps', configMap('c1'));
    await server.create('configmaps', configMap('c2'));
    expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': '2' });
    const err = await rejection(server.create('configmaps', configMap('c3')));
    expect(err.code).toBe(403);
    expect(err.message).toBe(
      'configmaps "c3" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2',
    );
    // Other kinds are not counted by it.
    await server.create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: NS } });
  });

  it('counts a core kind by its legacy name too, both names at once', async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { secrets: '1', 'count/secrets': '3' } }));
    await synced('q', { secrets: '0', 'count/secrets': '0' });
    await server.create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: NS } });
    expect((await server.quotaObject('q')).status?.used).toEqual({ secrets: '1', 'count/secrets': '1' });
    const err = await rejection(server.create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2', namespace: NS } }));
    expect(err.message).toBe('secrets "s2" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=1, limited: secrets=1');
  });

  it('counts a kind of any group by count/<resource>.<group>', async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('widgets', { hard: { 'count/widgets.example.kapi.dev': '1' } }));
    await synced('widgets', { 'count/widgets.example.kapi.dev': '0' });
    await server.create('widgets.example.kapi.dev', widget('w1'));
    const err = await rejection(server.create('widgets.example.kapi.dev', widget('w2')));
    expect(err.message).toBe(
      'widgets.example.kapi.dev "w2" is forbidden: exceeded quota: widgets, requested: count/widgets.example.kapi.dev=1, used: count/widgets.example.kapi.dev=1, limited: count/widgets.example.kapi.dev=1',
    );
  });

  it('does not charge a dry run, yet refuses one past the quota', async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '1' } }));
    await synced('q', { 'count/configmaps': '0' });
    await server.create('configmaps', configMap('c1'), { dryRun: true });
    expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': '0' });
    await server.create('configmaps', configMap('c1'));
    const err = await rejection(server.create('configmaps', configMap('c2'), { dryRun: true }));
    expect(err.code).toBe(403);
  });

  it('counts no cluster-scoped objects in a namespace', async () => {
    const Cluster = defineResource({
      group: 'example.kapi.dev',
      kind: 'Cluster',
      plural: 'clusters',
      namespaced: false,
      versions: [{ name: 'v1', schema: z.object({}) }],
    });
    const clusters = new Store(Cluster as unknown as ResourceDefinition, { storage: memory, clock });
    server.stores.set('clusters.example.kapi.dev', clusters);
    await clusters.create({}, { apiVersion: 'example.kapi.dev/v1', kind: 'Cluster', metadata: { name: 'c1' } });
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/clusters.example.kapi.dev': '1' } }));
    await synced('q', { 'count/clusters.example.kapi.dev': '0' });
  });

  it('a scoped quota counts no objects and constrains none', async () => {
    await server
      .store('resourcequotas')
      .create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '0' }, scopes: ['PriorityClass'] }));
    await synced('q', { 'count/configmaps': '0' });
    await server.create('configmaps', configMap('c1'));
  });

  it('admits 5 of 20 concurrent creates against a quota of 5, never more', async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '5' } }));
    await synced('q', { 'count/configmaps': '0' });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => server.create('configmaps', configMap(`c${i}`))));
    const admitted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as StatusError] : []));
    expect(admitted).toHaveLength(5);
    expect(refused.every((e) => e.code === 403 && e.message.includes('exceeded quota: q'))).toBe(true);
    expect((await server.store('configmaps').list({ namespace: NS })).items).toHaveLength(5);
    expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': '5' });
  });

  it('two servers over one storage never exceed a quota either (the resourceVersion precondition)', async () => {
    const other = new Server(memory, clock, { controller: false });
    await other.start();
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '5' } }));
    await synced('q', { 'count/configmaps': '0' });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? other : server).create('configmaps', configMap(`c${i}`))),
    );
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as StatusError] : []));
    // A create that lost every retry to the other server is a 409, as kube answers; none is admitted past the quota.
    expect(refused.every((e) => e.code === 403 || e.code === 409)).toBe(true);
    const stored = (await server.store('configmaps').list({ namespace: NS })).items.length;
    expect(stored).toBe(results.length - refused.length);
    expect(stored).toBeLessThanOrEqual(5);
    expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': String(stored) });
  });

  it('frees the count of a deleted object, and the resync corrects a wrong usage', async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '2' } }));
    await synced('q', { 'count/configmaps': '0' });
    await server.create('configmaps', configMap('c1'));
    await server.create('configmaps', configMap('c2'));
    await server.store('configmaps').delete({ namespace: NS }, 'c1');
    const q = await synced('q', { 'count/configmaps': '1' });
    await server.create('configmaps', configMap('c3'));
    // Someone writes a wrong usage; the periodic resync sets it right.
    const current = await server.quotaObject('q');
    await server.store('resourcequotas').update(
      { namespace: NS },
      'q',
      { ...current, status: { ...current.status, used: { 'count/configmaps': '0' } } },
      {
        subresource: 'status',
      },
    );
    clock.advance(60_000);
    await synced('q', { 'count/configmaps': '2' });
    expect(q.status?.hard).toEqual({ 'count/configmaps': '2' });
  });

  it('recalculates when spec.hard changes', async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '2' } }));
    await synced('q', { 'count/configmaps': '0' });
    await server.create('configmaps', configMap('c1'));
    const current = await server.quotaObject('q');
    await server
      .store('resourcequotas')
      .update({ namespace: NS }, 'q', { ...current, spec: { hard: { 'count/configmaps': '3', configmaps: '1' } } });
    const q = await synced('q', { 'count/configmaps': '1', configmaps: '1' });
    expect(q.status?.hard).toEqual({ 'count/configmaps': '3', configmaps: '1' });
  });
});

describe('ResourceQuota admission without the controller', () => {
  let memory: MemoryStorage;
  let server: Server;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    server = new Server(memory, new FakeClock(), { controller: false });
    await server.start();
  });
  afterEach(() => memory.close());

  it("refuses a create while a quota's usage is unknown", async () => {
    const { object } = await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '2' } }));
    // No status.hard yet: kube's quota does not match until its controller has run.
    await server.create('configmaps', configMap('c1'));
    const current = await server.quotaObject('q');
    await server
      .store('resourcequotas')
      .update({ namespace: NS }, 'q', { ...current, status: { hard: (object as ResourceQuota).spec?.hard } }, { subresource: 'status' });
    const err = await rejection(server.create('configmaps', configMap('c2')));
    expect(err.message).toBe('configmaps "c2" is forbidden: status unknown for quota: q, resources: count/configmaps');
  });

  it('lets subresources, updates, ignored kinds and other namespaces through', async () => {
    const attrs = (over: Partial<AdmissionAttributes>): AdmissionAttributes => ({
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      subresource: '',
      namespace: NS,
      name: 'c',
      object: configMap('c'),
      oldObject: null,
      dryRun: false,
      userInfo: { name: 'alice', groups: [] },
      ...over,
    });
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '0', 'count/events': '0' } }));
    const current = await server.quotaObject('q');
    await server.store('resourcequotas').update(
      { namespace: NS },
      'q',
      {
        ...current,
        status: { hard: { 'count/configmaps': '0', 'count/events': '0' }, used: { 'count/configmaps': '0', 'count/events': '0' } },
      },
      { subresource: 'status' },
    );
    await expect(server.quota.plugin.validate(attrs({}))).rejects.toThrow('exceeded quota: q');
    await server.quota.plugin.validate(attrs({ subresource: 'status' }));
    await server.quota.plugin.validate(attrs({ operation: 'UPDATE', oldObject: configMap('c') }));
    await server.quota.plugin.validate(attrs({ namespace: 'team-b' }));
    await server.quota.plugin.validate(attrs({ resource: { group: '', version: 'v1', resource: 'events' } }));
    expect(server.quota.plugin.handles('CREATE') && server.quota.plugin.handles('UPDATE')).toBe(true);
    expect(server.quota.plugin.handles('DELETE')).toBe(false);
  });
});

describe('ResourceQuotaAdmission', () => {
  it('provides the kind and the hooks that start and stop quota', () => {
    const p = new ResourceQuotaAdmission().provider();
    expect(p.resources.map((d) => `${d.plural}/${d.kind}/${d.namespaced}/${d.subresources.status}`)).toEqual([
      'resourcequotas/ResourceQuota/true/true',
    ]);
    expect(p.postStartHooks.map((h) => h.name)).toEqual(['start-resourcequota']);
    expect(p.preShutdownHooks.map((h) => h.name)).toEqual(['resourcequota/stop']);
  });

  it("makes a request wait for the start, and refuses it with kube's words after ten seconds", async () => {
    const clock = new FakeClock();
    const memory = new MemoryStorage({ compaction: false });
    const server = new Server(memory, clock, { controller: false });
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      subresource: '',
      namespace: NS,
      name: 'c',
      object: configMap('c'),
      oldObject: null,
      dryRun: false,
      userInfo: { name: 'alice', groups: [] },
    };
    const early = server.quota.plugin.validate(attrs);
    clock.advance(10_000);
    expect((await rejection(early)).message).toBe('configmaps "c" is forbidden: not yet ready to handle request');
    const waiting = server.quota.plugin.validate(attrs);
    await server.start();
    await waiting;
    // Cluster-scoped writes never wait.
    await new Server(memory, clock).quota.plugin.validate({ ...attrs, namespace: '' });
    memory.close();
  });
});

describe('ResourceQuota admission over a storage that stops answering', () => {
  it("fails the create after ten seconds with kube's internal error", async () => {
    const clock = new FakeClock();
    const memory = new MemoryStorage({ compaction: false });
    const server = new Server(memory, clock, { controller: false });
    const quotas = server.store('resourcequotas');
    await quotas.create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '5' } }));
    const current = await server.quotaObject('q');
    await quotas.update(
      { namespace: NS },
      'q',
      { ...current, status: { hard: { 'count/configmaps': '5' }, used: { 'count/configmaps': '0' } } },
      {
        subresource: 'status',
      },
    );
    // The quota's status write hangs, as a storage that lost its backend would.
    const stuck = {
      list: quotas.list.bind(quotas),
      get: quotas.get.bind(quotas),
      watch: quotas.watch.bind(quotas),
      update: () => new Promise(() => {}),
    };
    await server.quota.start({ store: (r) => (r === 'resourcequotas' ? stuck : server.stores.get(r)) });
    const pending = server.create('configmaps', configMap('c1'));
    await vi.waitFor(() => expect(clock.pending).toBeGreaterThan(0));
    clock.advance(10_000);
    const err = await rejection(pending);
    expect([err.code, err.message]).toEqual([500, 'Internal error occurred: resource quota evaluates timeout']);
    memory.close();
  });
});

describe('ResourceQuota admission losing a race to another writer', () => {
  let memory: MemoryStorage;
  let server: Server;
  let quotas: Store;
  /** Before the first status write of admission, another server charges one object to the quota. */
  async function raced(hard: string): Promise<void> {
    await quotas.create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': hard } }));
    const current = await server.quotaObject('q');
    await quotas.update(
      { namespace: NS },
      'q',
      { ...current, status: { hard: { 'count/configmaps': hard }, used: { 'count/configmaps': '0' } } },
      { subresource: 'status' },
    );
    let raced = false;
    const racing = {
      list: quotas.list.bind(quotas),
      get: quotas.get.bind(quotas),
      watch: quotas.watch.bind(quotas),
      update: async (...args: Parameters<Store['update']>) => {
        if (!raced) {
          raced = true;
          const now = await server.quotaObject('q');
          await quotas.update(
            { namespace: NS },
            'q',
            { ...now, status: { ...now.status, used: { 'count/configmaps': '1' } } },
            { subresource: 'status' },
          );
        }
        return quotas.update(...args);
      },
    };
    await server.quota.start({ store: (r) => (r === 'resourcequotas' ? racing : server.stores.get(r)) });
  }
  beforeEach(() => {
    memory = new MemoryStorage({ compaction: false });
    server = new Server(memory, new FakeClock(), { controller: false });
    quotas = server.store('resourcequotas');
  });
  afterEach(() => memory.close());

  it('reads the quota again and charges on top of the other charge', async () => {
    await raced('2');
    await server.create('configmaps', configMap('c1'));
    expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': '2' });
  });

  it('refuses the create when the other charge took the last room', async () => {
    await raced('1');
    const err = await rejection(server.create('configmaps', configMap('c1')));
    expect(err.message).toBe(
      'configmaps "c1" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1',
    );
    expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': '1' });
  });
});

describe('ResourceQuota limitedResources', () => {
  let memory: MemoryStorage;
  let server: Server;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    const { limitedResources } = parseResourceQuotaConfiguration({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'ResourceQuotaConfiguration',
      limitedResources: [{ resource: 'configmaps', matchContains: ['configmaps'] }],
    });
    server = new Server(memory, new FakeClock(), { limitedResources });
    await server.start();
  });
  afterEach(() => {
    server.quota.stop();
    memory.close();
  });

  it('refuses a limited resource in a namespace without a quota covering it, and admits it once one does', async () => {
    const err = await rejection(server.create('configmaps', configMap('c1')));
    expect(err.message).toBe('configmaps "c1" is forbidden: insufficient quota to consume: configmaps,count/configmaps');
    // Other resources are not limited.
    await server.create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: NS } });
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '3', configmaps: '3' } }));
    await vi.waitFor(async () =>
      expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': '0', configmaps: '0' }),
    );
    await server.create('configmaps', configMap('c1'));
  });

  it('wants every limited name covered', async () => {
    await server.store('resourcequotas').create({ namespace: NS }, quota('q', { hard: { 'count/configmaps': '3' } }));
    await vi.waitFor(async () => expect((await server.quotaObject('q')).status?.used).toEqual({ 'count/configmaps': '0' }));
    const err = await rejection(server.create('configmaps', configMap('c1')));
    expect(err.message).toBe('configmaps "c1" is forbidden: insufficient quota to consume: configmaps');
  });
});

describe('parseResourceQuotaConfiguration', () => {
  it("reads both of kube's versions and nothing", () => {
    expect(parseResourceQuotaConfiguration(undefined)).toEqual({ limitedResources: [] });
    expect(
      parseResourceQuotaConfiguration({
        apiVersion: 'resourcequota.admission.k8s.io/v1beta1',
        kind: 'Configuration',
        limitedResources: [{ apiGroup: 'example.kapi.dev', resource: 'widgets', matchContains: ['widgets'] }],
      }),
    ).toEqual({ limitedResources: [{ apiGroup: 'example.kapi.dev', resource: 'widgets', matchContains: ['widgets'] }] });
  });

  it("refuses what kube's validation refuses", () => {
    expect(() =>
      parseResourceQuotaConfiguration({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'ResourceQuotaConfiguration',
        limitedResources: [{}],
      }),
    ).toThrow('limitedResources[0].resource: Required value');
    expect(() => parseResourceQuotaConfiguration({ apiVersion: 'v1', kind: 'ConfigMap' })).toThrow(
      'no kind "ConfigMap" is registered for version "v1" in scheme "admission plugin config"',
    );
  });
});

import { ConfigMap, Namespace, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import type { Filter } from '../filters/context.ts';
import { listen } from '../filters/serve.ts';
import { Widget } from '../openapi/test-support/widget.ts';
import { EventStream } from '../test-support/event-stream.ts';
import { json, post, testServers } from '../test-support/test-servers.ts';
import { GenericAPIServer, type ResourcesChange } from './generic-api-server.ts';

/**
 * addResource / removeResource on a running GenericAPIServer: routing, the watch cache, discovery and OpenAPI, the
 * delegation chain, the namespace controller, watches ended by a removal, and requests racing the changes.
 */

const start = testServers();

const GROUP = 'example.kapi.dev';
const widgets = (ns = 'default'): string => `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
const widget = (name: string, replicas = 1) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec: { replicas },
});
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** What an unknown resource answers: the 404 a removed one must answer too. */
const NOT_FOUND = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};

/** Memory storage whose lists take a while: a watch cache over it syncs late, as over a remote backend. */
class SlowListStorage extends MemoryStorage {
  override async list(...args: Parameters<MemoryStorage['list']>): ReturnType<MemoryStorage['list']> {
    await new Promise((r) => setTimeout(r, 100));
    return super.list(...args);
  }
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('addResource', () => {
  it('serves GET, LIST, WATCH and POST of the added kind, its stored objects from the first read', async () => {
    const storage = new SlowListStorage();
    // An object stored before the kind is served (as a CRD's instances are when its API comes back).
    await new Store(Widget, { storage }).create({ namespace: 'default' }, widget('old'));
    const { url, server } = await start({ storage });
    expect(await json(await fetch(`${url}${widgets()}`))).toEqual(NOT_FOUND);

    await server.addResource(Widget);
    // Routed once its watch cache synced: the first list is served from it (not 429 "initializing").
    const first = await fetch(`${url}${widgets()}`);
    expect(first.status).toBe(200);
    const list = await json(first);
    expect(list.kind).toBe('WidgetList');
    expect(list.items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual(['old']);
    expect(server.watchCacheStats().get(`widgets.${GROUP}`)?.ready).toBe(true);

    const watch = await EventStream.open(`${url}${widgets()}?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=5`);
    expect(watch.response.status).toBe(200);
    const created = await post(`${url}${widgets()}`, widget('new', 3), {});
    expect(created.status).toBe(201);
    const event = await watch.next();
    expect(event.type).toBe('ADDED');
    expect(event.object.metadata.name).toBe('new');
    watch.close();

    const got = await json(await fetch(`${url}${widgets()}/new`));
    expect(got.spec).toEqual({ replicas: 3 });
    // The status and scale subresources come with the definition.
    expect((await json(await fetch(`${url}${widgets()}/new/scale`))).spec).toEqual({ replicas: 3 });
    expect(server.store(`widgets.${GROUP}`)?.definition).toBe(Widget);
  });

  it('is an error for a kind already served (by this server, a delegate, or an add under way) and for Namespace', async () => {
    const { server } = await start();
    await expect(server.addResource(ConfigMap)).rejects.toThrow('resource configmaps in core/v1 is already served');
    await expect(server.addResource(Namespace)).rejects.toThrow('Namespace cannot be added at run time');
    const adding = server.addResource(Widget);
    await expect(server.addResource(Widget)).rejects.toThrow(`resource widgets in ${GROUP}/v1 is already served`);
    await adding;
    await expect(server.addResource(Widget)).rejects.toThrow(`resource widgets in ${GROUP}/v1 is already served`);

    const front = new GenericAPIServer({ storage: new MemoryStorage(), resources: [], delegate: server, closeStorage: false });
    await expect(front.addResource(Widget)).rejects.toThrow(`resource widgets in ${GROUP}/v1 is already served`);
  });

  it('refuses a write check that guards another kind, and runs its own on writes', async () => {
    const { url, server } = await start();
    await expect(server.addResource(Widget, { writeChecks: [{ resource: 'configmaps', check: async () => {} }] })).rejects.toThrow(
      `write check of resource configmaps given to addResource of widgets.${GROUP}`,
    );
    const seen: string[] = [];
    await server.addResource(Widget, {
      writeChecks: [{ resource: `widgets.${GROUP}`, check: async (attrs) => void seen.push(`${attrs.operation} ${attrs.name}`) }],
    });
    expect((await post(`${url}${widgets()}`, widget('w'), {})).status).toBe(201);
    expect(seen).toEqual(['CREATE w']);
  });

  it('changes legacy and aggregated discovery, with new ETags, and back on removal', async () => {
    const { url, server } = await start();
    const get = async (path: string, accept = 'application/json') => {
      const res = await fetch(`${url}${path}`, { headers: { accept } });
      return { status: res.status, etag: res.headers.get('etag'), body: await json(res) };
    };
    const groups = (b: { groups: { name: string }[] }) => b.groups.map((g) => g.name);
    const before = { apis: await get('/apis'), aggregated: await get('/apis', AGGREGATED), api: await get('/api', AGGREGATED) };
    expect(groups(before.apis.body)).not.toContain(GROUP);
    expect((await get(`/apis/${GROUP}`)).status).toBe(404);

    await server.addResource(Widget);
    const apis = await get('/apis');
    expect(apis.etag).not.toBe(before.apis.etag);
    expect(groups(apis.body)).toContain(GROUP);
    expect((await get(`/apis/${GROUP}`)).body.preferredVersion).toEqual({ groupVersion: `${GROUP}/v1`, version: 'v1' });
    const resources = (await get(`/apis/${GROUP}/v1`)).body.resources;
    expect(resources.map((r: { name: string }) => r.name)).toEqual(['widgets', 'widgets/scale', 'widgets/status']);
    expect(resources[0]).toMatchObject({ kind: 'Widget', namespaced: true, shortNames: ['wd'] });
    const aggregated = await get('/apis', AGGREGATED);
    expect(aggregated.etag).not.toBe(before.aggregated.etag);
    const group = aggregated.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === GROUP);
    expect(group.versions[0].resources[0]).toMatchObject({
      resource: 'widgets',
      responseKind: { group: GROUP, version: 'v1', kind: 'Widget' },
    });
    // The core group did not change, nor did its ETag.
    expect((await get('/api', AGGREGATED)).etag).toBe(before.api.etag);
    // A matching If-None-Match is a 304 for the new document.
    expect((await fetch(`${url}/apis`, { headers: { 'if-none-match': apis.etag ?? '' } })).status).toBe(304);

    expect(await server.removeResource(Widget)).toBe(true);
    const after = await get('/apis');
    expect(groups(after.body)).not.toContain(GROUP);
    // The same documents as before the add, so the same ETags.
    expect(after.etag).toBe(before.apis.etag);
    expect((await get('/apis', AGGREGATED)).etag).toBe(before.aggregated.etag);
    expect((await get(`/apis/${GROUP}/v1`)).status).toBe(404);
  });

  it('regenerates OpenAPI v2 and v3 with new hashes, and drops the kind on removal', async () => {
    const { url, server } = await start();
    const get = async (path: string) => {
      const res = await fetch(`${url}${path}`);
      return { status: res.status, etag: res.headers.get('etag'), body: res.status === 200 ? await json(res) : undefined };
    };
    const v2Before = await get('/openapi/v2');
    const indexBefore = await get('/openapi/v3');
    expect(Object.keys(indexBefore.body.paths)).not.toContain(`apis/${GROUP}/v1`);

    await server.addResource(Widget);
    const v2 = await get('/openapi/v2');
    expect(v2.etag).not.toBe(v2Before.etag);
    expect(Object.keys(v2.body.paths)).toContain(`/apis/${GROUP}/v1/namespaces/{namespace}/widgets`);
    expect(Object.keys(v2.body.definitions)).toContain('dev.kapi.example.v1.Widget');
    const index = await get('/openapi/v3');
    expect(index.etag).not.toBe(indexBefore.etag);
    const url3 = index.body.paths[`apis/${GROUP}/v1`].serverRelativeURL as string;
    expect(url3).toMatch(new RegExp(`^/openapi/v3/apis/${GROUP}/v1\\?hash=[0-9A-F]{128}$`));
    const doc = await get(url3);
    expect(doc.status).toBe(200);
    expect(doc.body.components.schemas['dev.kapi.example.v1.Widget'].description).toBe('A Widget is a thing kapi serves in its tests.');
    // The core group's document is the same as before, under the same hash.
    expect(index.body.paths['api/v1']).toEqual(indexBefore.body.paths['api/v1']);

    await server.removeResource({ group: GROUP, resource: 'widgets' });
    expect((await get('/openapi/v2')).etag).toBe(v2Before.etag);
    expect((await get('/openapi/v3')).body).toEqual(indexBefore.body);
    expect((await get(`/openapi/v3/apis/${GROUP}/v1`)).status).toBe(404);
    expect((await get(url3)).status).toBe(404);
  });

  it('is seen through a delegating server: routes, discovery, OpenAPI and change events (kube’s chain)', async () => {
    // aggregator → extensions → core, as kube-apiserver's: the extensions server adds a kind at run time.
    const { server: core } = await start({ closeStorage: false });
    const storage = new MemoryStorage();
    const extensions = new GenericAPIServer({ storage, resources: [], delegate: core });
    const aggregator = new GenericAPIServer({ storage: new MemoryStorage(), resources: [], delegate: extensions });
    const heard: ResourcesChange[] = [];
    const unsubscribe = aggregator.onResourcesChanged((c) => heard.push(c));
    await aggregator.start();
    const http = await listen(aggregator.handler);
    try {
      const url = http.url;
      expect((await fetch(`${url}${widgets()}`)).status).toBe(404);
      const etag = (await fetch(`${url}/apis`, { headers: { accept: AGGREGATED } })).headers.get('etag');

      await extensions.addResource(Widget);
      expect(heard).toEqual([{ type: 'Added', definition: Widget }]);
      expect((await post(`${url}${widgets()}`, widget('w'), {})).status).toBe(201);
      expect((await json(await fetch(`${url}${widgets()}`))).items).toHaveLength(1);
      const aggregated = await fetch(`${url}/apis`, { headers: { accept: AGGREGATED } });
      expect(aggregated.headers.get('etag')).not.toBe(etag);
      expect((await json(aggregated)).items.map((g: { metadata: { name: string } }) => g.metadata.name)).toContain(GROUP);
      expect((await json(await fetch(`${url}/openapi/v3`))).paths).toHaveProperty([`apis/${GROUP}/v1`]);
      expect(aggregator.definitions()).toContain(Widget);
      expect(aggregator.store(`widgets.${GROUP}`)).toBe(extensions.store(`widgets.${GROUP}`));
      // The core server's namespace lifecycle guards the extensions server's kind: no objects in a missing namespace.
      const missing = await post(`${url}${widgets('nowhere')}`, widget('w'), {});
      expect(missing.status).toBe(404);
      expect((await json(missing)).message).toBe('namespaces "nowhere" not found');

      expect(await extensions.removeResource(Widget)).toBe(true);
      expect(heard.map((c) => c.type)).toEqual(['Added', 'Removed']);
      expect(await json(await fetch(`${url}${widgets()}`))).toEqual(NOT_FOUND);
      expect(aggregator.definitions()).not.toContain(Widget);
      // Another server's kind is not this one's to remove.
      expect(await aggregator.removeResource(ConfigMap)).toBe(false);
      unsubscribe();
      await extensions.addResource(Widget);
      expect(heard).toHaveLength(2);
    } finally {
      await http.close();
      await aggregator.shutdown();
    }
  });
});

describe('removeResource', () => {
  for (const watchCache of [true, false])
    it(`ends the kind’s open watches cleanly, answers 404 on its paths and keeps its objects (watch cache ${watchCache ? 'on' : 'off'})`, async () => {
      const storage = new MemoryStorage();
      const { url, server } = await start({ storage, watchCache });
      await server.addResource(Widget);
      expect((await post(`${url}${widgets()}`, widget('kept'), {})).status).toBe(201);
      const watches = await Promise.all([
        EventStream.open(`${url}${widgets()}?watch=1`),
        EventStream.open(`${url}/apis/${GROUP}/v1/widgets?watch=1&resourceVersion=0`),
        EventStream.open(`${url}/apis/${GROUP}/v1/watch/namespaces/default/widgets/kept?allowWatchBookmarks=true`),
      ]);
      for (const w of watches) expect(w.response.status).toBe(200);
      // Each sees the object first, so each is attached to the store before the removal.
      for (const w of watches) expect((await w.next()).type).toBe('ADDED');
      // A watch on a kind that stays is not touched.
      const other = await EventStream.open(`${url}/api/v1/namespaces/default/configmaps?watch=1`);

      expect(await server.removeResource(Widget)).toBe(true);
      // The stream closes without an ERROR event or a reset (a reset rejects the read).
      for (const w of watches) expect((await w.rest()).filter((e) => e.type !== 'BOOKMARK')).toEqual([]);
      for (const path of [widgets(), `${widgets()}/kept`, `/apis/${GROUP}/v1/widgets`, `${widgets()}?watch=1`])
        expect(await json(await fetch(`${url}${path}`))).toEqual(NOT_FOUND);
      expect(await json(await post(`${url}${widgets()}`, widget('new'), {}))).toEqual(NOT_FOUND);
      expect(server.watchCacheStats().has(`widgets.${GROUP}`)).toBe(false);
      expect(server.store(`widgets.${GROUP}`)).toBeUndefined();
      expect(await server.removeResource(Widget)).toBe(false);

      const created = post(
        `${url}/api/v1/namespaces/default/configmaps`,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
        {},
      );
      expect((await created).status).toBe(201);
      expect((await other.next()).object.metadata.name).toBe('c');
      other.close();

      // Its objects stay in storage: served again once the kind is added back.
      const stored = await new Store(Widget, { storage }).list({ namespace: 'default' });
      expect(stored.items.map((w) => w.metadata.name)).toEqual(['kept']);
      await server.addResource(Widget);
      expect((await json(await fetch(`${url}${widgets()}`))).items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual([
        'kept',
      ]);
    });

  it('answers a request routed before the removal from the storage it started with (the cache stops after it)', async () => {
    const storage = new MemoryStorage();
    let routed: () => void = () => {};
    const entered = new Promise<void>((resolve) => {
      routed = resolve;
    });
    // Told once the list below has been routed: the chain reaches the endpoint synchronously from here.
    const spy: Filter = (ctx, next) => {
      const served = next();
      if (ctx.url.searchParams.get('resourceVersionMatch') === 'NotOlderThan') routed();
      return served;
    };
    const { url, server } = await start({ storage, filters: [spy] });
    await server.addResource(Widget);
    const rv = Number((await json(await fetch(`${url}${widgets()}`))).metadata.resourceVersion);
    // A list at a revision the cache has not reached waits for it in the cache.
    const waiting = fetch(`${url}${widgets()}?resourceVersion=${rv + 1}&resourceVersionMatch=NotOlderThan`);
    await entered;
    await server.removeResource(Widget);
    expect((await fetch(`${url}${widgets()}`)).status).toBe(404);
    await new Store(Widget, { storage }).create({ namespace: 'default' }, widget('late'));
    const res = await waiting;
    expect(res.status).toBe(200);
    expect((await json(res)).items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual(['late']);
  });

  it('cancels an add whose watch cache has not synced yet, and refuses to remove Namespace', async () => {
    const { url, server } = await start();
    const adding = server.addResource(Widget);
    expect(await server.removeResource(Widget)).toBe(true);
    await expect(adding).rejects.toThrow(`resource widgets.${GROUP} was removed (or the server shut down) before its watch cache synced`);
    expect((await fetch(`${url}${widgets()}`)).status).toBe(404);
    expect(server.definitions()).not.toContain(Widget);
    await server.addResource(Widget);
    expect((await fetch(`${url}${widgets()}`)).status).toBe(200);
    await expect(server.removeResource(Namespace)).rejects.toThrow('Namespace cannot be removed');
  });

  it('tells listeners once the change took effect', async () => {
    const { server } = await start();
    const seen: string[] = [];
    server.onResourcesChanged((c) => {
      const served = server.definitions().includes(c.definition) && server.store(`widgets.${GROUP}`) !== undefined;
      seen.push(`${c.type} ${c.definition.plural} ${served ? 'served' : 'not served'}`);
    });
    await server.addResource(Widget);
    await server.removeResource(Widget);
    expect(seen).toEqual(['Added widgets served', 'Removed widgets not served']);
  });
});

describe('the namespace controller and added kinds', () => {
  it('deletes an added namespaced kind’s objects with their namespace, and leaves them once the kind is removed', async () => {
    const storage = new MemoryStorage();
    const { url, server } = await start({ storage });
    const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const gone = (name: string) => async () => (await fetch(`${url}/api/v1/namespaces/${name}`)).status === 404;
    await server.addResource(Widget);
    for (const ns of ['doomed', 'spared']) {
      expect((await post(`${url}/api/v1/namespaces`, namespace(ns), {})).status).toBe(201);
      expect((await post(`${url}${widgets(ns)}`, widget('w'), {})).status).toBe(201);
    }

    expect((await fetch(`${url}/api/v1/namespaces/doomed`, { method: 'DELETE' })).status).toBe(200);
    await until(gone('doomed'), 'namespace doomed to go');
    const stored = new Store(Widget, { storage });
    expect((await stored.list({ namespace: 'doomed' })).items).toEqual([]);

    await server.removeResource(Widget);
    expect((await fetch(`${url}/api/v1/namespaces/spared`, { method: 'DELETE' })).status).toBe(200);
    await until(gone('spared'), 'namespace spared to go');
    expect((await stored.list({ namespace: 'spared' })).items.map((w) => w.metadata.name)).toEqual(['w']);
  });

  it('deletes the objects of a kind added to a server whose delegate serves Namespace', async () => {
    const { server: core } = await start({ closeStorage: false });
    const extensions = new GenericAPIServer({ storage: new MemoryStorage(), resources: [], delegate: core });
    await extensions.start();
    const http = await listen(extensions.handler);
    try {
      const url = http.url;
      await extensions.addResource(Widget);
      expect(
        (await post(`${url}/api/v1/namespaces`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } }, {})).status,
      ).toBe(201);
      expect((await post(`${url}${widgets('doomed')}`, widget('w'), {})).status).toBe(201);
      expect((await fetch(`${url}/api/v1/namespaces/doomed`, { method: 'DELETE' })).status).toBe(200);
      await until(async () => (await fetch(`${url}/api/v1/namespaces/doomed`)).status === 404, 'namespace doomed to go');
      expect((await json(await fetch(`${url}/apis/${GROUP}/v1/widgets`))).items).toEqual([]);
    } finally {
      await http.close();
      await extensions.shutdown();
    }
  });
});

describe('requests racing addResource and removeResource', () => {
  it('are answered (200, 201 or 404, never an error) and the server stays sound', async () => {
    const { url, server } = await start();
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    let running = true;
    let n = 0;
    const client = async (): Promise<void> => {
      while (running) {
        const i = n++;
        const requests = [
          fetch(`${url}${widgets()}`),
          fetch(`${url}${widgets()}/w0`),
          post(`${url}${widgets()}`, widget(`w${i}`), {}),
          fetch(`${url}/apis`, { headers: { accept: AGGREGATED } }),
          fetch(`${url}/apis/${GROUP}/v1`),
          fetch(`${url}/openapi/v3`),
        ];
        for (const res of await Promise.all(requests)) {
          count(res.status);
          await res.arrayBuffer();
        }
        const watch = await EventStream.open(`${url}${widgets()}?watch=1&timeoutSeconds=1`);
        count(watch.response.status);
        // A 200 stream ends on its timeout or the removal, either way without an error; a 404 is a Status.
        if (watch.response.status === 200) await watch.next();
        watch.close();
      }
    };
    const clients = Array.from({ length: 4 }, client);
    for (let round = 0; round < 15; round++) {
      await server.addResource(Widget);
      await new Promise((r) => setTimeout(r, 5));
      await server.removeResource(Widget);
      await new Promise((r) => setTimeout(r, 2));
    }
    running = false;
    await Promise.all(clients);
    expect([...statuses.keys()].filter((s) => ![200, 201, 404].includes(s))).toEqual([]);
    expect(statuses.get(201)).toBeGreaterThan(0);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await server.addResource(Widget);
    expect((await json(await fetch(`${url}${widgets()}`))).kind).toBe('WidgetList');
  });
});

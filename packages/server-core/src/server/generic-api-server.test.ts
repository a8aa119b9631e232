import { ConfigMap, Event, Namespace, Secret } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Widget } from '../../../../examples/control-plane/src/widget.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { EventStream } from '../test-support/event-stream.ts';
import { GenericAPIServer } from './generic-api-server.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

interface Served {
  server: GenericAPIServer;
  http: Listening;
}

async function serve(server: GenericAPIServer): Promise<Served> {
  await server.start();
  return { server, http: await listen(server.handler) };
}

async function stop(s: Served | undefined): Promise<void> {
  if (!s) return;
  await s.http.close();
  await s.server.shutdown();
}

/** A small HTTP client over fetch: JSON bodies by default, the response decoded when it is JSON. */
function client(base: () => string) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Headers; body: Json; text: string }> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${base()}${path}`, init);
    const text = await res.text();
    let parsed: Json;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
  return {
    call,
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body: unknown, headers?: Record<string, string>) => call('POST', path, body, headers),
    put: (path: string, body: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    patch: (path: string, body: unknown, contentType: string) => call('PATCH', path, body, { 'content-type': contentType }),
    del: (path: string, body?: unknown) => call('DELETE', path, body),
  };
}

const cm = (name: string, data: Record<string, string> = {}, extra: Json = {}): Json => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra.metadata },
  data,
});
const widget = (name: string, spec: Json = { replicas: 1 }, metadata: Json = {}): Json => ({
  apiVersion: 'example.kapi.dev/v1',
  kind: 'Widget',
  metadata: { name, ...metadata },
  spec,
});

const newServer = (storage = new MemoryStorage()) =>
  new GenericAPIServer({ storage, resources: [Namespace, ConfigMap, Secret, Event, Widget] });

let main: Served;
const http = client(() => main.http.url);
const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const widgets = (ns: string) => `/apis/example.kapi.dev/v1/namespaces/${ns}/widgets`;
let nsCounter = 0;
/** A fresh namespace per test, so tests do not see each other's objects. */
async function freshNamespace(): Promise<string> {
  const name = `t${++nsCounter}`;
  const res = await http.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  expect(res.status).toBe(201);
  return name;
}

beforeAll(async () => {
  main = await serve(newServer());
});
afterAll(async () => {
  await stop(main);
});

describe('CRUD', () => {
  it('create is 201, get and list return what was stored', async () => {
    const ns = await freshNamespace();
    const created = await http.post(cms(ns), cm('a', { k: 'v' }));
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(created.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: ns }, data: { k: 'v' } });
    expect(created.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(created.body.metadata.creationTimestamp).toMatch(/Z$/);

    const got = await http.get(`${cms(ns)}/a`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const list = await http.get(cms(ns));
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe('ConfigMapList');
    expect(list.body.apiVersion).toBe('v1');
    expect(Number(list.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(created.body.metadata.resourceVersion));
    expect(list.body.items.map((i: Json) => i.metadata.name)).toEqual(['a']);
  });

  it('a second create of the same name is 409 AlreadyExists; a missing object is 404 NotFound', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a'));
    const again = await http.post(cms(ns), cm('a'));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "a" already exists',
      reason: 'AlreadyExists',
      details: { name: 'a', kind: 'configmaps' },
      code: 409,
    });
    const missing = await http.get(`${cms(ns)}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
  });

  it('update is 200; a stale resourceVersion is 409 Conflict with kube’s message', async () => {
    const ns = await freshNamespace();
    const created = (await http.post(cms(ns), cm('a', { k: '1' }))).body;
    const updated = await http.put(`${cms(ns)}/a`, { ...created, data: { k: '2' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ k: '2' });
    expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));

    const stale = await http.put(`${cms(ns)}/a`, { ...created, data: { k: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'a', kind: 'configmaps' },
    });
    expect((await http.get(`${cms(ns)}/a`)).body.data).toEqual({ k: '2' });
  });

  it('patch: merge, json and strategic on a ConfigMap; 415 for a Content-Type that is no patch type', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a', { a: '1', b: '2' }));
    const merged = await http.patch(`${cms(ns)}/a`, { data: { b: null, c: '3' } }, 'application/merge-patch+json');
    expect(merged.status).toBe(200);
    expect(merged.body.data).toEqual({ a: '1', c: '3' });
    const json = await http.patch(`${cms(ns)}/a`, [{ op: 'add', path: '/data/d', value: '4' }], 'application/json-patch+json');
    expect(json.status).toBe(200);
    expect(json.body.data).toEqual({ a: '1', c: '3', d: '4' });
    const strategic = await http.patch(`${cms(ns)}/a`, { data: { e: '5' } }, 'application/strategic-merge-patch+json; charset=utf-8');
    expect(strategic.status).toBe(200);
    expect(strategic.body.data).toEqual({ a: '1', c: '3', d: '4', e: '5' });

    const bad = await http.patch(`${cms(ns)}/a`, { data: {} }, 'application/json');
    expect(bad.status).toBe(415);
    expect(bad.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'UnsupportedMediaType',
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    });
  });

  it('patch of a Widget spec: merge and strategic', async () => {
    const ns = await freshNamespace();
    expect((await http.post(widgets(ns), widget('w', { replicas: 1, color: 'red' }))).status).toBe(201);
    const merged = await http.patch(`${widgets(ns)}/w`, { spec: { replicas: 2 } }, 'application/merge-patch+json');
    expect(merged.status).toBe(200);
    expect(merged.body.spec).toEqual({ replicas: 2, color: 'red' });
    const strategic = await http.patch(`${widgets(ns)}/w`, { spec: { color: 'blue' } }, 'application/strategic-merge-patch+json');
    expect(strategic.status).toBe(200);
    expect(strategic.body.spec).toEqual({ replicas: 2, color: 'blue' });
    const missing = await http.patch(`${widgets(ns)}/nope`, { spec: {} }, 'application/merge-patch+json');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('widgets.example.kapi.dev "nope" not found');
  });

  it('delete: a core kind answers with a Success Status, a Widget with the object', async () => {
    const ns = await freshNamespace();
    const created = (await http.post(cms(ns), cm('a'))).body;
    const deleted = await http.del(`${cms(ns)}/a`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'a', kind: 'configmaps', uid: created.metadata.uid },
    });
    expect((await http.get(`${cms(ns)}/a`)).status).toBe(404);
    expect((await http.del(`${cms(ns)}/a`)).status).toBe(404);

    await http.post(widgets(ns), widget('w'));
    const w = await http.del(`${widgets(ns)}/w`);
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({ kind: 'Widget', apiVersion: 'example.kapi.dev/v1', metadata: { name: 'w' } });
    expect((await http.get(`${widgets(ns)}/w`)).status).toBe(404);
  });

  it('an object with a finalizer stays with a deletionTimestamp until an update empties its finalizers', async () => {
    const ns = await freshNamespace();
    await http.post(widgets(ns), widget('w', { replicas: 1 }, { finalizers: ['example.kapi.dev/hold'] }));
    const deleting = await http.del(`${widgets(ns)}/w`);
    expect(deleting.status).toBe(200);
    expect(deleting.body.metadata.deletionTimestamp).toBeTruthy();
    expect(deleting.body.metadata.finalizers).toEqual(['example.kapi.dev/hold']);
    const still = await http.get(`${widgets(ns)}/w`);
    expect(still.status).toBe(200);
    expect(still.body.metadata.deletionTimestamp).toBe(deleting.body.metadata.deletionTimestamp);

    const released = await http.put(`${widgets(ns)}/w`, { ...still.body, metadata: { ...still.body.metadata, finalizers: [] } });
    expect(released.status).toBe(200);
    expect((await http.get(`${widgets(ns)}/w`)).status).toBe(404);

    // A core kind with a finalizer: the delete answers with the object (not finished), not a Status.
    await http.post(cms(ns), cm('c', {}, { metadata: { finalizers: ['example.kapi.dev/hold'] } }));
    const pending = await http.del(`${cms(ns)}/c`);
    expect(pending.status).toBe(200);
    expect(pending.body.kind).toBe('ConfigMap');
    expect(pending.body.metadata.deletionTimestamp).toBeTruthy();
    await http.patch(`${cms(ns)}/c`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect((await http.get(`${cms(ns)}/c`)).status).toBe(404);
  });

  it('deletecollection deletes what the labelSelector selects and returns the list', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a', {}, { metadata: { labels: { app: 'x' } } }));
    await http.post(cms(ns), cm('b', {}, { metadata: { labels: { app: 'x' } } }));
    await http.post(cms(ns), cm('c', {}, { metadata: { labels: { app: 'y' } } }));
    const res = await http.del(`${cms(ns)}?labelSelector=app%3Dx`);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('ConfigMapList');
    expect(res.body.items.map((i: Json) => i.metadata.name).sort()).toEqual(['a', 'b']);
    expect((await http.get(cms(ns))).body.items.map((i: Json) => i.metadata.name)).toEqual(['c']);
  });

  it('dryRun=All on create, update and delete stores nothing', async () => {
    const ns = await freshNamespace();
    const dry = await http.post(`${cms(ns)}?dryRun=All`, cm('a', { k: '1' }));
    expect(dry.status).toBe(201);
    expect(dry.body.metadata.name).toBe('a');
    expect((await http.get(`${cms(ns)}/a`)).status).toBe(404);

    const created = (await http.post(cms(ns), cm('a', { k: '1' }))).body;
    const dryUpdate = await http.put(`${cms(ns)}/a?dryRun=All`, { ...created, data: { k: '2' } });
    expect(dryUpdate.status).toBe(200);
    expect(dryUpdate.body.data).toEqual({ k: '2' });
    const dryPatch = await http.patch(`${cms(ns)}/a?dryRun=All`, { data: { k: '3' } }, 'application/merge-patch+json');
    expect(dryPatch.status).toBe(200);
    expect(dryPatch.body.data).toEqual({ k: '3' });
    const dryDelete = await http.del(`${cms(ns)}/a?dryRun=All`);
    expect(dryDelete.status).toBe(200);
    const after = await http.get(`${cms(ns)}/a`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(created);
  });

  it('an invalid dryRun value is 422 on CreateOptions.meta.k8s.io', async () => {
    const ns = await freshNamespace();
    const res = await http.post(`${cms(ns)}?dryRun=Foo`, cm('a'));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Foo"}: supported values: "All"',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'CreateOptions',
        // The cause's reason key: see 'StatusCause is written with the key "reason"' below.
        causes: [expect.objectContaining({ message: 'Unsupported value: []string{"Foo"}: supported values: "All"', field: 'dryRun' })],
      },
      code: 422,
    });
    const update = await http.put(`${cms(ns)}/a?fieldValidation=Loud`, cm('a'));
    expect(update.status).toBe(422);
    expect(update.body.message).toBe(
      'UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
    );
    const del = await http.del(`${cms(ns)}/a?dryRun=Foo`);
    expect(del.status).toBe(422);
    expect(del.body.details.kind).toBe('DeleteOptions');
    expect((await http.get(`${cms(ns)}/a`)).status).toBe(404);
  });

  it('fieldValidation: Strict refuses an unknown field with 400, Warn answers with a Warning header', async () => {
    const ns = await freshNamespace();
    const strict = await http.post(`${widgets(ns)}?fieldValidation=Strict`, widget('w', { replicas: 1, foo: 1 }));
    expect(strict.status).toBe(400);
    expect(strict.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(strict.body.message).toContain('unknown field "spec.foo"');
    expect((await http.get(`${widgets(ns)}/w`)).status).toBe(404);

    const warn = await http.post(`${widgets(ns)}?fieldValidation=Warn`, widget('w', { replicas: 1, foo: 1 }));
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"spec.foo\\""');
    expect(warn.body.spec).toEqual({ replicas: 1 });
  });

  it('status subresource: PUT status ignores spec changes, PUT of the object ignores status', async () => {
    const ns = await freshNamespace();
    const created = (await http.post(widgets(ns), widget('w', { replicas: 1 }))).body;
    const st = await http.put(`${widgets(ns)}/w/status`, { ...created, spec: { replicas: 9 }, status: { replicas: 1 } });
    expect(st.status).toBe(200);
    expect(st.body.spec.replicas).toBe(1);
    expect(st.body.status).toEqual({ replicas: 1 });
    const main2 = await http.put(`${widgets(ns)}/w`, { ...st.body, spec: { replicas: 2 }, status: { replicas: 7 } });
    expect(main2.status).toBe(200);
    expect(main2.body.spec.replicas).toBe(2);
    expect(main2.body.status).toEqual({ replicas: 1 });
    const patched = await http.patch(`${widgets(ns)}/w/status`, { status: { replicas: 2 } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(patched.body.status.replicas).toBe(2);
    expect((await http.get(`${widgets(ns)}/w/status`)).body.status.replicas).toBe(2);
  });

  it('scale subresource: GET, PUT and PATCH an autoscaling/v1 Scale', async () => {
    const ns = await freshNamespace();
    const created = (await http.post(widgets(ns), widget('w', { replicas: 2 }))).body;
    const scale = await http.get(`${widgets(ns)}/w/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'w', namespace: ns, uid: created.metadata.uid },
      spec: { replicas: 2 },
    });
    const put = await http.put(`${widgets(ns)}/w/scale`, { ...scale.body, spec: { replicas: 4 } });
    expect(put.status).toBe(200);
    expect(put.body.spec.replicas).toBe(4);
    expect((await http.get(`${widgets(ns)}/w`)).body.spec.replicas).toBe(4);
    const patched = await http.patch(`${widgets(ns)}/w/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
    expect((await http.get(`${widgets(ns)}/w`)).body.spec.replicas).toBe(5);
    const stale = await http.put(`${widgets(ns)}/w/scale`, { ...scale.body, spec: { replicas: 6 } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    // ConfigMaps have no scale subresource.
    await http.post(cms(ns), cm('c'));
    expect((await http.get(`${cms(ns)}/c/scale`)).status).toBe(404);
  });
});

describe('namespaces', () => {
  it('the default namespaces exist after start', async () => {
    const list = await http.get('/api/v1/namespaces');
    expect(list.body.kind).toBe('NamespaceList');
    const names = list.body.items.map((i: Json) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']));
    const def = await http.get('/api/v1/namespaces/default');
    expect(def.body).toMatchObject({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  });

  it('creating into a missing namespace is 404; into a terminating one 403', async () => {
    const missing = await http.post(cms('nowhere'), cm('a'));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      reason: 'NotFound',
      message: 'namespaces "nowhere" not found',
      details: { name: 'nowhere', kind: 'namespaces' },
    });

    // A namespace held by a metadata finalizer stays Terminating.
    await http.post('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'held', finalizers: ['example.kapi.dev/hold'] },
    });
    const deleting = await http.del('/api/v1/namespaces/held');
    expect(deleting.status).toBe(200);
    expect(deleting.body).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    expect(deleting.body.metadata.deletionTimestamp).toBeTruthy();
    const forbidden = await http.post(cms('held'), cm('a'));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({
      reason: 'Forbidden',
      message: 'configmaps "a" is forbidden: unable to create new content in namespace held because it is being terminated',
      details: { name: 'a', kind: 'configmaps', causes: [{ message: 'namespace held is being terminated', field: 'metadata.namespace' }] },
    });
    const gone = watchFor('/api/v1/namespaces?fieldSelector=metadata.name%3Dheld', 'DELETED');
    await http.patch('/api/v1/namespaces/held', { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await gone;
    expect((await http.get('/api/v1/namespaces/held')).status).toBe(404);
  });

  it('DELETE of a namespace: Terminating, its content removed by the namespace controller, then gone', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a'));
    await http.post(widgets(ns), widget('w'));
    const watch = await EventStream.open(`${main.http.url}/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D${ns}`);
    expect((await watch.next()).type).toBe('ADDED');
    const res = await http.del(`/api/v1/namespaces/${ns}`);
    expect(res.status).toBe(200);
    expect(res.body.status.phase).toBe('Terminating');
    let ev: Json;
    do ev = await watch.next();
    while (ev && ev.type !== 'DELETED');
    watch.close();
    expect(ev?.type).toBe('DELETED');
    expect((await http.get(`/api/v1/namespaces/${ns}`)).status).toBe(404);
    expect((await http.get(cms(ns))).body.items).toEqual([]);
    expect((await http.get(widgets(ns))).body.items).toEqual([]);
  });

  it('default namespaces may not be deleted', async () => {
    const res = await http.del('/api/v1/namespaces/default');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      reason: 'Forbidden',
      message: 'namespaces "default" is forbidden: this namespace may not be deleted',
    });
  });

  it('PUT namespaces/x/finalize sets spec.finalizers', async () => {
    const ns = await freshNamespace();
    const got = (await http.get(`/api/v1/namespaces/${ns}`)).body;
    expect(got.spec.finalizers).toEqual(['kubernetes']);
    const res = await http.put(`/api/v1/namespaces/${ns}/finalize`, { ...got, spec: { finalizers: [] } });
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('Namespace');
    expect(res.body.spec.finalizers ?? []).toEqual([]);
    expect((await http.get(`/api/v1/namespaces/${ns}`)).body.spec.finalizers ?? []).toEqual([]);
  });
});

/** Resolves when a watch on `path` sees an event of `type`. */
async function watchFor(path: string, type: string): Promise<Json> {
  const sep = path.includes('?') ? '&' : '?';
  const w = await EventStream.open(`${main.http.url}${path}${sep}watch=1`);
  try {
    for (let ev = await w.next(); ev; ev = await w.next()) if (ev.type === type) return ev;
    throw new Error(`watch ended before ${type}`);
  } finally {
    w.close();
  }
}

describe('negotiation', () => {
  it('Accept: application/yaml answers YAML', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a', { k: 'v' }));
    const res = await http.get(`${cms(ns)}/a`, { accept: 'application/yaml' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml');
    expect(res.text).toMatch(/^apiVersion: v1\ndata:\n {2}k: v\nkind: ConfigMap\nmetadata:\n/);
  });

  it('as=Table answers a Table with the printer columns', async () => {
    const ns = await freshNamespace();
    await http.post(widgets(ns), widget('w', { replicas: 3, color: 'red' }));
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const list = await http.get(widgets(ns), { accept });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe('application/json');
    expect(list.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(list.body.metadata.resourceVersion).toMatch(/^\d+$/);
    const cols = list.body.columnDefinitions.map((c: Json) => c.name);
    expect(cols).toEqual(expect.arrayContaining(['Name', 'Replicas', 'Ready', 'Color']));
    expect(cols[0]).toBe('Name');
    expect(list.body.columnDefinitions.find((c: Json) => c.name === 'Color').priority).toBe(1);
    expect(list.body.rows).toHaveLength(1);
    const row = list.body.rows[0];
    expect(row.cells[0]).toBe('w');
    expect(row.cells[cols.indexOf('Replicas')]).toBe(3);
    expect(row.cells[cols.indexOf('Color')]).toBe('red');
    expect(row.object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'w' } });

    const one = await http.get(`${widgets(ns)}/w?includeObject=Object`, { accept });
    expect(one.body.kind).toBe('Table');
    expect(one.body.rows[0].object).toMatchObject({ kind: 'Widget', spec: { replicas: 3, color: 'red' } });
    const bad = await http.get(`${widgets(ns)}/w?includeObject=Everything`, { accept });
    expect(bad.status).toBe(400);
  });

  it('answers a Table or partial metadata in the meta.k8s.io version asked for', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a', { k: 'v' }));
    const table = await http.get(cms(ns), { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
    expect(table.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    const list = await http.get(cms(ns), { accept: 'application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io' });
    expect(list.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1beta1' });
    expect(list.body.items[0].apiVersion).toBe('meta.k8s.io/v1beta1');
  });

  it('as=PartialObjectMetadataList on a list, as=PartialObjectMetadata on a get', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a', { k: 'v' }));
    const list = await http.get(cms(ns), { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' });
    expect(list.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a' } });
    expect(list.body.items[0].data).toBeUndefined();

    const one = await http.get(`${cms(ns)}/a`, { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' });
    expect(one.body).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', namespace: ns } });
    expect(one.body.data).toBeUndefined();

    // The list form on a get (and the object form on a list) is not acceptable; a later clause may still be.
    expect((await http.get(`${cms(ns)}/a`, { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' })).status).toBe(
      406,
    );
    const fallback = await http.get(`${cms(ns)}/a`, {
      accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/json',
    });
    expect(fallback.body.kind).toBe('ConfigMap');
  });

  it('an Accept nothing can satisfy is 406 NotAcceptable', async () => {
    const res = await http.get(cms('default'), { accept: 'application/vnd.kubernetes.protobuf' });
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotAcceptable', code: 406 });
    expect(res.body.message).toMatch(/^only the following media types are accepted: application\/json, application\/yaml/);
    // With a fallback clause the server answers JSON.
    const ok = await http.get(cms('default'), { accept: 'application/vnd.kubernetes.protobuf, application/json' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json');
  });

  it('?pretty=true indents the JSON', async () => {
    const res = await http.get('/api/v1/namespaces/default?pretty=true');
    expect(res.text).toMatch(/^\{\n {2}"/);
    expect(res.text).toContain('\n  "kind": "Namespace",\n');
    expect(res.text).toContain('\n    "name": "default",\n');
    expect(res.text.endsWith('}\n')).toBe(true);
    const compact = await http.get('/api/v1/namespaces/default');
    expect(compact.text).not.toContain('\n');
    expect(compact.body).toEqual(JSON.parse(res.text));
  });
});

describe('list', () => {
  it('limit and continue page through a consistent snapshot', async () => {
    const ns = await freshNamespace();
    for (const n of ['a', 'b', 'c']) await http.post(cms(ns), cm(n));
    const first = await http.get(`${cms(ns)}?limit=2`);
    expect(first.body.items.map((i: Json) => i.metadata.name)).toEqual(['a', 'b']);
    expect(first.body.metadata.continue).toBeTruthy();
    expect(first.body.metadata.remainingItemCount).toBe(1);
    // A write between pages is not seen by the rest of the listing.
    await http.post(cms(ns), cm('d'));
    const second = await http.get(`${cms(ns)}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(second.status).toBe(200);
    expect(second.body.items.map((i: Json) => i.metadata.name)).toEqual(['c']);
    expect(second.body.metadata.continue).toBeUndefined();
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });

  it('resourceVersion semantics pass through to storage', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a'));
    const noRV = await http.get(`${cms(ns)}?resourceVersionMatch=NotOlderThan`);
    expect(noRV.status).toBe(422);
    expect(noRV.body.reason).toBe('Invalid');
    expect(noRV.body.message).toContain('resourceVersionMatch is forbidden unless resourceVersion is provided');
    const badMatch = await http.get(`${cms(ns)}?resourceVersion=1&resourceVersionMatch=Newest`);
    expect(badMatch.status).toBe(422);
    expect(badMatch.body.details.kind).toBe('ListOptions');
    const notANumber = await http.get(`${cms(ns)}?resourceVersion=abc`);
    expect(notANumber.status).toBe(400);
    const tooLarge = await http.get(`${cms(ns)}?resourceVersion=99999999&resourceVersionMatch=Exact`);
    expect(tooLarge.status).toBe(504);
    expect(tooLarge.body).toMatchObject({ reason: 'Timeout', details: { causes: [{ message: 'Too large resource version' }] } });
    expect(tooLarge.body.message).toMatch(/^Timeout: Too large resource version: 99999999, current: \d+$/);
    expect(tooLarge.body.details.retryAfterSeconds).toBe(1);
    const any = await http.get(`${cms(ns)}?resourceVersion=0`);
    expect(any.status).toBe(200);
    expect(any.body.items.map((i: Json) => i.metadata.name)).toEqual(['a']);
  });

  it('a bad labelSelector is 400', async () => {
    const res = await http.get(`${cms('default')}?labelSelector=${encodeURIComponent('a in (b')}`);
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('BadRequest');
  });
});

describe('watch', () => {
  it('streams JSON lines with chunked encoding: create, update, delete in order; timeoutSeconds ends it', async () => {
    const ns = await freshNamespace();
    const rv = (await http.get(cms(ns))).body.metadata.resourceVersion;
    const w = await EventStream.open(`${main.http.url}${cms(ns)}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    expect(w.response.status).toBe(200);
    expect(w.response.headers.get('content-type')).toBe('application/json');
    expect(w.response.headers.get('transfer-encoding')).toBe('chunked');
    const created = (await http.post(cms(ns), cm('a', { k: '1' }))).body;
    await http.put(`${cms(ns)}/a`, { ...created, data: { k: '2' } });
    await http.del(`${cms(ns)}/a`);
    const events = await w.rest();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[0].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' }, data: { k: '1' } });
    expect(events[1].object.data).toEqual({ k: '2' });
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
  });

  it('sendInitialEvents: ADDED for what exists, then a BOOKMARK marking the end of the initial events', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a'));
    await http.post(cms(ns), cm('b'));
    const w = await EventStream.open(
      `${main.http.url}${cms(ns)}?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`,
    );
    const a = await w.next();
    const b = await w.next();
    expect([a.type, b.type]).toEqual(['ADDED', 'ADDED']);
    expect([a.object.metadata.name, b.object.metadata.name]).toEqual(['a', 'b']);
    const bookmark = await w.next();
    expect(bookmark.type).toBe('BOOKMARK');
    expect(bookmark.object.kind).toBe('ConfigMap');
    expect(bookmark.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(b.object.metadata.resourceVersion));
    w.close();

    // sendInitialEvents needs resourceVersionMatch=NotOlderThan.
    const bad = await http.get(`${cms(ns)}?watch=1&sendInitialEvents=true`);
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
  });

  it('the legacy /watch/ path watches one object', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a'));
    await http.post(cms(ns), cm('b'));
    const w = await EventStream.open(`${main.http.url}/api/v1/watch/namespaces/${ns}/configmaps/a?timeoutSeconds=1`);
    const first = await w.next();
    expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    await http.patch(`${cms(ns)}/b`, { data: { x: '1' } }, 'application/merge-patch+json');
    await http.patch(`${cms(ns)}/a`, { data: { x: '2' } }, 'application/merge-patch+json');
    const rest = await w.rest();
    expect(rest.map((e) => [e.type, e.object.metadata.name])).toEqual([['MODIFIED', 'a']]);
  });

  it('a Table watch: the first event carries the column definitions, later ones none', async () => {
    const ns = await freshNamespace();
    await http.post(widgets(ns), widget('a', { replicas: 1 }));
    const w = await EventStream.open(`${main.http.url}${widgets(ns)}?watch=1&timeoutSeconds=1`, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    const first = await w.next();
    expect(first.type).toBe('ADDED');
    expect(first.object.kind).toBe('Table');
    expect(first.object.columnDefinitions.map((c: Json) => c.name)).toEqual(expect.arrayContaining(['Name', 'Replicas']));
    expect(first.object.rows[0].cells[0]).toBe('a');
    await http.post(widgets(ns), widget('b', { replicas: 2 }));
    const second = await w.next();
    expect(second.type).toBe('ADDED');
    expect(second.object.kind).toBe('Table');
    expect(second.object.columnDefinitions ?? []).toEqual([]);
    expect(second.object.rows[0].cells[0]).toBe('b');
    w.close();
  });

  it('a client abort ends the server-side watch', async () => {
    const ns = await freshNamespace();
    const registered = async () => {
      const m = await main.server.metrics.registeredWatchers.get();
      return m.values.find((v) => v.labels.kind === 'ConfigMap')?.value ?? 0;
    };
    const before = await registered();
    const w = await EventStream.open(`${main.http.url}${cms(ns)}?watch=1`);
    await http.post(cms(ns), cm('a'));
    expect((await w.next()).type).toBe('ADDED');
    expect(await registered()).toBe(before + 1);
    w.close();
    await vi.waitFor(async () => expect(await registered()).toBe(before));
  });

  it('an unsupported watch Accept is 406', async () => {
    const res = await http.get(`${cms('default')}?watch=1`, { accept: 'application/yaml' });
    expect(res.status).toBe(406);
    expect(res.body.reason).toBe('NotAcceptable');
  });
});

describe('watch from a resourceVersion older than the cache', () => {
  let s: Served | undefined;
  afterEach(async () => {
    await stop(s);
    s = undefined;
  });

  it('is one ERROR event with a 410 Expired Status, then the end', async () => {
    const storage = new MemoryStorage();
    // History the caches never saw: they list after these writes.
    for (let i = 0; i < 3; i++)
      await storage.create(`/registry/elsewhere/x${i}`, { apiVersion: 'v1', kind: 'X', metadata: { name: `x${i}` } });
    s = await serve(newServer(storage));
    const w = await EventStream.open(`${s.http.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1`);
    expect(w.response.status).toBe(200);
    const events = await w.rest();
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('ERROR');
    expect(events[0].object).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 });
    expect(events[0].object.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
  });
});

describe('discovery', () => {
  it('/api and /api/v1', async () => {
    const api = await http.get('/api');
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const v1 = await http.get('/api/v1');
    expect(v1.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    const names = v1.body.resources.map((r: Json) => r.name);
    expect(names).toEqual(expect.arrayContaining(['configmaps', 'secrets', 'events', 'namespaces', 'namespaces/status']));
    const configmaps = v1.body.resources.find((r: Json) => r.name === 'configmaps');
    expect(configmaps).toMatchObject({ namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] });
    expect(configmaps.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    const namespaces = v1.body.resources.find((r: Json) => r.name === 'namespaces');
    expect(namespaces).toMatchObject({ namespaced: false, kind: 'Namespace', shortNames: ['ns'] });
  });

  // kube lists {name: 'namespaces/finalize', kind: 'Namespace', verbs: ['update']} in /api/v1.
  it('/api/v1 lists namespaces/finalize', async () => {
    const v1 = await http.get('/api/v1');
    expect(v1.body.resources.find((r: Json) => r.name === 'namespaces/finalize')).toMatchObject({ kind: 'Namespace', verbs: ['update'] });
  });

  // Namespaces have no deletecollection in kube (the REST layer answers it with 405).
  it('/api/v1 lists namespaces without deletecollection', async () => {
    const v1 = await http.get('/api/v1');
    expect(v1.body.resources.find((r: Json) => r.name === 'namespaces').verbs).toEqual([
      'create',
      'delete',
      'get',
      'list',
      'patch',
      'update',
      'watch',
    ]);
  });

  it('/apis, /apis/<group> and /apis/<group>/<version>', async () => {
    const apis = await http.get('/apis');
    expect(apis.body.kind).toBe('APIGroupList');
    const group = apis.body.groups.find((g: Json) => g.name === 'example.kapi.dev');
    expect(group).toMatchObject({
      versions: [{ groupVersion: 'example.kapi.dev/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'example.kapi.dev/v1', version: 'v1' },
    });
    const g = await http.get('/apis/example.kapi.dev');
    expect(g.body).toMatchObject({ kind: 'APIGroup', name: 'example.kapi.dev' });
    const gv = await http.get('/apis/example.kapi.dev/v1');
    expect(gv.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'example.kapi.dev/v1' });
    const byName = new Map(gv.body.resources.map((r: Json) => [r.name, r]));
    expect(byName.get('widgets')).toMatchObject({
      singularName: 'widget',
      namespaced: true,
      kind: 'Widget',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['wd'],
      categories: ['all'],
    });
    expect(byName.get('widgets/status')).toMatchObject({ kind: 'Widget', verbs: ['get', 'patch', 'update'] });
    expect(byName.get('widgets/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('aggregated discovery, ETag and If-None-Match', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    const res = await http.get('/apis', { accept });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(accept);
    expect(res.body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    const example = res.body.items.find((i: Json) => i.metadata.name === 'example.kapi.dev');
    expect(example.versions[0].version).toBe('v1');
    const w = example.versions[0].resources.find((r: Json) => r.resource === 'widgets');
    expect(w).toMatchObject({ scope: 'Namespaced', singularResource: 'widget', shortNames: ['wd'], categories: ['all'] });
    expect(w.subresources.map((s: Json) => s.subresource).sort()).toEqual(['scale', 'status']);
    const legacy = await http.get('/api', { accept });
    expect(legacy.body.items.map((i: Json) => i.metadata.name ?? '')).toEqual(['']);

    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const cached = await http.get('/apis', { accept, 'if-none-match': etag as string });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    const plainEtag = (await http.get('/apis')).headers.get('etag');
    expect(plainEtag).not.toBe(etag);
  });

  it('an unknown group or version is 404', async () => {
    for (const path of ['/apis/nope.example.com', '/apis/example.kapi.dev/v9', '/api/v2']) {
      const res = await http.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
    }
  });
});

describe('errors, health, version and metrics', () => {
  // metav1.StatusCause's Go field is Type, but its JSON key is "reason" (`Type CauseType json:"reason,omitempty"`).
  it('StatusCause is written with the key "reason"', async () => {
    const res = await http.post(`${cms('default')}?dryRun=Foo`, cm('a'));
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: []string{"Foo"}: supported values: "All"', field: 'dryRun' },
    ]);
  });

  it('an unknown resource is 404 NotFound', async () => {
    const res = await http.get('/api/v1/namespaces/default/foos');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    expect((await http.get('/apis/nope.example.com/v1/things')).status).toBe(404);
    expect((await http.get('/nothing/here')).status).toBe(404);
  });

  it('a verb the route does not have is 405 MethodNotAllowed', async () => {
    const ns = await freshNamespace();
    const post = await http.post(`${cms(ns)}/a`, cm('a'));
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'MethodNotAllowed', code: 405 });
    expect((await http.get(`${cms(ns)}/a`)).status).toBe(404);
    // Namespaces have no deletecollection.
    const dc = await http.del('/api/v1/namespaces');
    expect(dc.status).toBe(405);
    expect(dc.body.reason).toBe('MethodNotAllowed');
  });

  it('/healthz, /livez, /readyz', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await http.get(path);
      expect(res.status, path).toBe(200);
      expect(res.text).toBe('ok');
    }
    const verbose = await http.get('/readyz?verbose');
    expect(verbose.text).toContain('[+]ping ok\n');
    expect(verbose.text).toContain('[+]poststarthook/start-namespace-controller ok\n');
    expect(verbose.text).toContain('[+]shutdown ok\n');
    expect(verbose.text).toMatch(/readyz check passed\n$/);
    expect((await http.get('/healthz/poststarthook/start-namespace-controller')).text).toBe('ok');
    expect((await http.get('/livez?verbose')).text).not.toContain('shutdown');
  });

  it('/version', async () => {
    const res = await http.get('/version');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ major: expect.any(String), minor: expect.any(String), gitVersion: expect.any(String) });
  });

  it('/metrics counts requests with kube’s labels', async () => {
    const ns = await freshNamespace();
    await http.post(cms(ns), cm('a'));
    await http.get(`${cms(ns)}/a`);
    await http.get(`${cms(ns)}/missing`);
    await http.get(cms(ns));
    const res = await http.get('/metrics');
    expect(res.status).toBe(200);
    const samples = res.text
      .split('\n')
      .filter((l) => l.startsWith('apiserver_request_total{'))
      .map((l) => {
        const labels = Object.fromEntries([...l.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
        return { labels, value: Number(l.slice(l.lastIndexOf(' ') + 1)) };
      });
    const find = (want: Record<string, string>) =>
      samples.find((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v) && s.value > 0);
    const base = { group: '', version: 'v1', resource: 'configmaps', subresource: '', component: 'apiserver', dry_run: '' };
    expect(find({ ...base, verb: 'POST', scope: 'resource', code: '201' })).toBeDefined();
    expect(find({ ...base, verb: 'GET', scope: 'resource', code: '200' })).toBeDefined();
    expect(find({ ...base, verb: 'GET', scope: 'resource', code: '404' })).toBeDefined();
    expect(find({ ...base, verb: 'LIST', scope: 'namespace', code: '200' })).toBeDefined();
  });
});

describe('lifecycle', () => {
  let s: Served | undefined;
  afterEach(async () => {
    await stop(s);
    s = undefined;
  });

  it('post-start hooks run once, in order, at start; duplicate names throw', async () => {
    const server = newServer();
    const ran: string[] = [];
    server.addPostStartHook('one', () => {
      ran.push('one');
    });
    server.addPostStartHook('two', async (srv) => {
      expect(srv).toBe(server);
      ran.push('two');
    });
    expect(() => server.addPostStartHook('one', () => {})).toThrow(/already registered/);
    s = await serve(server);
    await server.start();
    expect(ran).toEqual(['one', 'two']);
    expect(() => server.addPostStartHook('three', () => {})).toThrow();
    const verbose = await fetch(`${s.http.url}/healthz?verbose`).then((r) => r.text());
    expect(verbose).toContain('[+]poststarthook/one ok\n');
    expect(verbose).toContain('[+]poststarthook/two ok\n');
  });

  it('pre-shutdown hooks run on shutdown, while readyz already fails', async () => {
    const server = newServer();
    s = await serve(server);
    const url = s.http.url;
    let readyz: { status: number; text: string } | undefined;
    server.addPreShutdownHook('probe', async () => {
      const res = await fetch(`${url}/readyz?verbose`);
      readyz = { status: res.status, text: await res.text() };
    });
    expect(() => server.addPreShutdownHook('probe', () => {})).toThrow(/already registered/);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await server.shutdown();
    expect(readyz?.status).toBe(500);
    expect(readyz?.text).toContain('[-]shutdown failed: reason withheld\n');
    expect(readyz?.text).toContain('readyz check failed');
    expect(server.shuttingDown).toBe(true);
    // livez still passes: the process is alive.
    expect((await fetch(`${url}/livez`)).status).toBe(200);
  });

  it('shutdown ends open watches', async () => {
    const server = newServer();
    s = await serve(server);
    const w = await EventStream.open(`${s.http.url}/api/v1/namespaces/default/configmaps?watch=1`);
    expect(w.response.status).toBe(200);
    await server.shutdown();
    expect(await w.rest()).toEqual([]);
  });
});

describe('delegation', () => {
  let s: Served | undefined;
  afterEach(async () => {
    await stop(s);
    s = undefined;
  });

  it('serves its own kinds, passes the delegate’s paths through, and lists both servers’ groups', async () => {
    const { defineResource } = await import('@kapi/registry');
    const { z } = await import('zod');
    const Gadget = defineResource({
      group: 'alpha.kapi.dev',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: false,
      versions: [{ name: 'v1alpha1', storage: true, schema: z.object({ spec: z.object({ size: z.int() }) }) }],
    });
    const first = newServer();
    const second = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Gadget], delegate: first });
    s = await serve(second);
    const c = client(() => (s as Served).http.url);

    const gadget = await c.post('/apis/alpha.kapi.dev/v1alpha1/gadgets', {
      apiVersion: 'alpha.kapi.dev/v1alpha1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: { size: 1 },
    });
    expect(gadget.status).toBe(201);
    expect(first.store('gadgets.alpha.kapi.dev')).toBeUndefined();
    // The delegate's kinds, its namespaces (started by second.start()) included.
    const created = await c.post('/apis/example.kapi.dev/v1/namespaces/default/widgets', widget('w'));
    expect(created.status).toBe(201);
    expect((await c.get('/api/v1/namespaces/default/configmaps')).body.kind).toBe('ConfigMapList');
    expect(second.store('widgets.example.kapi.dev')).toBeDefined();

    const groups = (await c.get('/apis')).body.groups.map((g: Json) => g.name);
    expect(groups).toEqual(expect.arrayContaining(['alpha.kapi.dev', 'example.kapi.dev']));
    expect((await c.get('/apis/example.kapi.dev/v1')).body.resources.map((r: Json) => r.name)).toContain('widgets');
    expect((await c.get('/api/v1')).body.resources.map((r: Json) => r.name)).toContain('configmaps');
    expect((await c.get('/apis/nope.example.com/v1/things')).status).toBe(404);
  });
});

import { FakeClock, INITIAL_EVENTS_END_ANNOTATION, type KubeObject, StatusError, type WatchEvent } from '@kapi/apimachinery';
import { MemoryStorage, type Storage, type Watch } from '@kapi/storage';
import { Cacher } from '@kapi/watchcache';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import type { ObjectOf } from '../resource-definition.ts';
import { Store } from './store.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z.object({ replicas: z.int().min(0), color: z.string().optional() }),
    status: z.object({ replicas: z.int().optional() }).optional(),
  }),
  subresources: { status: true },
  selectableFields: [{ jsonPath: '.spec.color' }],
});

const PREFIX = '/registry/example.kapi.dev/widgets';

interface Backend {
  storage: Storage;
  close(): Promise<void>;
}

const backends: [string, () => Promise<Backend>][] = [
  [
    'MemoryStorage',
    async () => {
      const storage = new MemoryStorage({ compaction: false });
      return { storage, close: () => storage.close() };
    },
  ],
  [
    'Cacher',
    async () => {
      const backend = new MemoryStorage({ compaction: false });
      const storage = new Cacher({
        storage: backend,
        resourcePrefix: PREFIX,
        getAttrs: (o) => Widget.strategy.getAttrs(o as ObjectOf<typeof Widget>),
      });
      await storage.ready();
      return {
        storage,
        close: async () => {
          await storage.close();
          await backend.close();
        },
      };
    },
  ],
];

function widget(name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name, ...meta }, spec: { replicas: 1 }, ...extra };
}

/** The StatusError `p` rejects with. */
async function failure(p: Promise<unknown> | (() => unknown)): Promise<StatusError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

async function take(w: Watch, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const it = w[Symbol.asyncIterator]();
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

const ns = { namespace: 'default' };

describe.each(backends)('Store over %s', (_label, makeBackend) => {
  let backend: Backend;
  let clock: FakeClock;
  let store: Store;
  let uids: number;

  beforeEach(async () => {
    backend = await makeBackend();
    clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    uids = 0;
    store = new Store(Widget, { storage: backend.storage, clock, uid: () => `uid-${++uids}` });
  });
  afterEach(() => backend.close());

  describe('create', () => {
    it('fills system fields, clears status, stores under the resource key', async () => {
      const { object, warnings } = await store.create(ns, widget('w1', { status: { replicas: 5 } }));
      expect(warnings).toEqual([]);
      expect(object.metadata).toMatchObject({
        name: 'w1',
        namespace: 'default',
        uid: 'uid-1',
        generation: 1,
        creationTimestamp: '2026-01-02T03:04:05Z',
      });
      expect(Number(object.metadata.resourceVersion)).toBeGreaterThan(0);
      expect(object.status).toBeUndefined();
      expect(object.apiVersion).toBe('example.kapi.dev/v1');
      const raw = await backend.storage.get(`${PREFIX}/default/w1`);
      expect(raw?.metadata.uid).toBe('uid-1');
      expect(store.keys.key('default', 'w1')).toBe(`${PREFIX}/default/w1`);
    });

    it('takes the namespace from the request and refuses a different one', async () => {
      const { object } = await store.create({ namespace: 'ns1' }, widget('w1'));
      expect(object.metadata.namespace).toBe('ns1');
      const err = await failure(store.create({ namespace: 'ns1' }, widget('w2', {}, { namespace: 'other' })));
      expect(err.code).toBe(400);
      expect(err.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    });

    it('generates names and gives up after repeated collisions', async () => {
      const { object } = await store.create(ns, widget('', {}, { generateName: 'w-' }));
      expect(object.metadata.name).toMatch(/^w-[a-z0-9]{5}$/);
      const fixed = new Store(Widget, { storage: backend.storage, clock, nameGenerator: { generateName: (b) => `${b}same` } });
      await fixed.create(ns, widget('', {}, { generateName: 'x-' }));
      const err = await failure(fixed.create(ns, widget('', {}, { generateName: 'x-' })));
      expect(err.code).toBe(409);
      expect(err.reason).toBe('AlreadyExists');
      expect(err.message).toBe(
        'widgets.example.kapi.dev "x-same" already exists, the server was not able to generate a unique name for the object',
      );
    });

    it('refuses a resourceVersion with kube-apiserver’s words, as a 400 (kube answers 500)', async () => {
      const err = await failure(store.create(ns, widget('w1', {}, { resourceVersion: '5' })));
      expect(err.code).toBe(400);
      expect(err.status.reason).toBe('BadRequest');
      expect(err.message).toBe('resourceVersion should not be set on objects to be created');
    });

    it('answers 409 AlreadyExists worded with the resource', async () => {
      await store.create(ns, widget('w1'));
      const err = await failure(store.create(ns, widget('w1')));
      expect(err.code).toBe(409);
      expect(err.message).toBe('widgets.example.kapi.dev "w1" already exists');
    });

    it('validates schema and metadata into one 422', async () => {
      const err = await failure(store.create(ns, { ...widget('W1'), spec: { replicas: -1 } }));
      expect(err.code).toBe(422);
      expect(err.message).toBe(
        "Widget.example.kapi.dev \"W1\" is invalid: [metadata.name: Invalid value: \"W1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0]",
      );
      expect(err.status.details?.causes).toHaveLength(2);
    });

    it('handles unknown fields per fieldValidation', async () => {
      const body = { ...widget('w1'), spec: { replicas: 1, foo: 1 }, metadata: { name: 'w1', bar: 2 } };
      const strict = await failure(store.create(ns, body, { fieldValidation: 'Strict' }));
      expect(strict.code).toBe(400);
      expect(strict.message).toBe(
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "metadata.bar", unknown field "spec.foo"',
      );
      const warn = await store.create(ns, body);
      expect(warn.warnings).toEqual(['unknown field "metadata.bar"', 'unknown field "spec.foo"']);
      expect(warn.object.spec).toEqual({ replicas: 1 });
      expect((warn.object.metadata as Record<string, unknown>).bar).toBeUndefined();
      const ignore = await store.create(ns, { ...body, metadata: { name: 'w2' } }, { fieldValidation: 'Ignore' });
      expect(ignore.warnings).toEqual([]);
      expect(ignore.object.spec).toEqual({ replicas: 1 });
    });

    it('dryRun validates without storing', async () => {
      const { object } = await store.create(ns, widget('w1'), { dryRun: true });
      expect(object.metadata.uid).toBe('uid-1');
      expect(object.metadata.resourceVersion).toBeUndefined();
      expect((await failure(store.get(ns, 'w1'))).code).toBe(404);
      expect((await failure(store.create(ns, widget('BAD'), { dryRun: true }))).code).toBe(422);
    });
  });

  describe('get', () => {
    it('reads and answers 404 in kube words', async () => {
      const { object } = await store.create(ns, widget('w1'));
      expect(await store.get(ns, 'w1')).toEqual(object);
      const err = await failure(store.get(ns, 'nope'));
      expect(err.code).toBe(404);
      expect(err.message).toBe('widgets.example.kapi.dev "nope" not found');
      expect(err.status.details).toMatchObject({ name: 'nope', group: 'example.kapi.dev', kind: 'widgets' });
    });

    it('maps a resourceVersion beyond the store to 504', async () => {
      await store.create(ns, widget('w1'));
      const err = await failure(store.get(ns, 'w1', { resourceVersion: '999999' }));
      expect(err.code).toBe(504);
    }, 10_000);

    it('refuses an empty name or a missing namespace', async () => {
      expect((await failure(store.get(ns, ''))).message).toBe('resource name may not be empty');
      expect((await failure(store.get({}, 'w1'))).message).toBe('a namespace is required for widgets.example.kapi.dev');
    });
  });

  describe('list', () => {
    beforeEach(async () => {
      await store.create({ namespace: 'a' }, widget('w1', { spec: { replicas: 1, color: 'red' } }, { labels: { app: 'x' } }));
      await store.create({ namespace: 'a' }, widget('w2', { spec: { replicas: 1, color: 'blue' } }, { labels: { app: 'y' } }));
      await store.create({ namespace: 'b' }, widget('w3', { spec: { replicas: 1, color: 'red' } }, { labels: { app: 'x' } }));
    });

    it('lists one namespace or all, as a WidgetList', async () => {
      const all = await store.list({});
      expect(all.kind).toBe('WidgetList');
      expect(all.apiVersion).toBe('example.kapi.dev/v1');
      expect(all.items.map((o) => o.metadata.name)).toEqual(['w1', 'w2', 'w3']);
      expect(Number(all.metadata.resourceVersion)).toBeGreaterThan(0);
      expect((await store.list({ namespace: 'b' })).items.map((o) => o.metadata.name)).toEqual(['w3']);
    });

    it('filters by labels, metadata fields and declared selectable fields', async () => {
      const names = async (o: Parameters<Store['list']>[1]) => (await store.list({}, o)).items.map((i) => i.metadata.name);
      expect(await names({ labelSelector: 'app=x' })).toEqual(['w1', 'w3']);
      expect(await names({ fieldSelector: 'metadata.name=w2' })).toEqual(['w2']);
      expect(await names({ fieldSelector: 'metadata.namespace!=a' })).toEqual(['w3']);
      expect(await names({ fieldSelector: 'spec.color=red,metadata.namespace=a' })).toEqual(['w1']);
    });

    it('refuses unknown field selectors and bad selectors with 400', async () => {
      const err = await failure(store.list({}, { fieldSelector: 'spec.replicas=1' }));
      expect(err.code).toBe(400);
      expect(err.message).toBe('"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.color"');
      expect((await failure(store.list({}, { labelSelector: 'app in (x' }))).code).toBe(400);
    });

    it('pages with limit and continue', async () => {
      const first = await store.list({}, { limit: 2 });
      expect(first.items).toHaveLength(2);
      expect(first.metadata.continue).toBeTruthy();
      const rest = await store.list({}, { limit: 2, continue: first.metadata.continue });
      expect(rest.items.map((o) => o.metadata.name)).toEqual(['w3']);
      expect(rest.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    });

    it('validates list options (422)', async () => {
      const noRV = await failure(store.list({}, { resourceVersionMatch: 'NotOlderThan' }));
      expect(noRV.code).toBe(422);
      expect(noRV.message).toBe(
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      );
      const exact0 = await failure(store.list({}, { resourceVersion: '0', resourceVersionMatch: 'Exact' }));
      expect(exact0.message).toBe(
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      );
      const first = await store.list({}, { limit: 1 });
      const cont = await failure(
        store.list({}, { continue: first.metadata.continue, resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' }),
      );
      expect(cont.message).toContain('resourceVersionMatch is forbidden when continue is provided');
    });

    it('maps storage errors (bad continue token → 400)', async () => {
      const err = await failure(store.list({}, { limit: 1, continue: 'garbage' }));
      expect(err.code).toBe(400);
      expect(err.message).toMatch(/^invalid continue token/);
    });
  });

  describe('watch', () => {
    it('streams changes in the namespace matching the selectors', async () => {
      const { object } = await store.create(ns, widget('w1', {}, { labels: { app: 'x' } }));
      const w = store.watch(ns, { resourceVersion: object.metadata.resourceVersion, labelSelector: 'app=x' });
      await store.create({ namespace: 'other' }, widget('w9', {}, { labels: { app: 'x' } }));
      await store.create(ns, widget('w2', {}, { labels: { app: 'y' } }));
      const w1 = await store.get(ns, 'w1');
      await store.update(ns, 'w1', { ...w1, spec: { replicas: 2 } });
      await store.delete(ns, 'w1');
      const events = await take(w, 2);
      w.stop();
      expect(events.map((e) => `${e.type} ${(e.object as KubeObject).metadata.name}`)).toEqual(['MODIFIED w1', 'DELETED w1']);
    });

    it('requires resourceVersionMatch=NotOlderThan with sendInitialEvents', async () => {
      const err = await failure(() => store.watch(ns, { sendInitialEvents: true }));
      expect(err.code).toBe(422);
      expect(err.message).toBe(
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      );
      const lone = await failure(() => store.watch(ns, { resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' }));
      expect(lone.message).toContain('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    });

    it('sends initial events and a typed end-of-initial-events bookmark', async () => {
      await store.create(ns, widget('w1'));
      const w = store.watch(ns, { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
      const [added, bookmark] = await take(w, 2);
      w.stop();
      expect(added?.type).toBe('ADDED');
      expect(bookmark?.type).toBe('BOOKMARK');
      const b = bookmark?.object as KubeObject;
      expect(b.apiVersion).toBe('example.kapi.dev/v1');
      expect(b.kind).toBe('Widget');
      expect(b.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION]).toBe('true');
    });

    it('ends after timeoutSeconds on the store clock', async () => {
      const w = store.watch(ns, { timeoutSeconds: 5 });
      const done = take(w, 1);
      clock.advance(5000);
      expect(await done).toEqual([]);
    });
  });

  describe('update', () => {
    it('bumps generation only when the spec changes and ignores status on the main resource', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const labelled = await store.update(ns, 'w1', { ...w, metadata: { ...w.metadata, labels: { a: 'b' } }, status: { replicas: 3 } });
      expect(labelled.created).toBe(false);
      expect(labelled.object.metadata.generation).toBe(1);
      expect(labelled.object.status).toBeUndefined();
      expect(Number(labelled.object.metadata.resourceVersion)).toBeGreaterThan(Number(w.metadata.resourceVersion));
      const respec = await store.update(ns, 'w1', { ...labelled.object, spec: { replicas: 4 } });
      expect(respec.object.metadata.generation).toBe(2);
      const same = await store.update(ns, 'w1', respec.object);
      expect(same.object.metadata.resourceVersion).toBe(respec.object.metadata.resourceVersion);
    });

    it('the status subresource changes status and nothing else', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const { object } = await store.update(
        ns,
        'w1',
        { ...w, metadata: { ...w.metadata, labels: { a: 'b' } }, spec: { replicas: 9 }, status: { replicas: 2 } },
        { subresource: 'status' },
      );
      expect(object.status).toEqual({ replicas: 2 });
      expect(object.spec).toEqual({ replicas: 1 });
      expect(object.metadata.labels).toBeUndefined();
      expect(object.metadata.generation).toBe(1);
    });

    it('answers 409 for a stale resourceVersion', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      await store.update(ns, 'w1', { ...w, spec: { replicas: 2 } });
      const err = await failure(store.update(ns, 'w1', { ...w, spec: { replicas: 3 } }));
      expect(err.code).toBe(409);
      expect(err.reason).toBe('Conflict');
      expect(err.message).toBe(
        'Operation cannot be fulfilled on widgets.example.kapi.dev "w1": the object has been modified; please apply your changes to the latest version and try again',
      );
    });

    it('requires a resourceVersion (422) and refuses to create on update (404)', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const { resourceVersion: _rv, ...meta } = w.metadata;
      const err = await failure(store.update(ns, 'w1', { ...w, metadata: meta }));
      expect(err.code).toBe(422);
      expect(err.message).toBe(
        'Widget.example.kapi.dev "w1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      );
      const missing = await failure(store.update(ns, 'w2', widget('w2', {}, { resourceVersion: '1' })));
      expect(missing.code).toBe(404);
      expect(missing.message).toBe('widgets.example.kapi.dev "w2" not found');
    });

    it('creates on update and updates unconditionally when the strategy allows', async () => {
      const Open = defineResource({
        group: 'example.kapi.dev',
        kind: 'Gadget',
        plural: 'gadgets',
        namespaced: false,
        versions: [{ name: 'v1', schema: z.object({ spec: z.object({ n: z.int() }) }) }],
        strategy: { allowCreateOnUpdate: () => true, allowUnconditionalUpdate: () => true },
      });
      const gadgets = new Store(Open, { storage: backend.storage, clock });
      const body = { apiVersion: 'example.kapi.dev/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { n: 1 } };
      const created = await gadgets.update({}, 'g1', body);
      expect(created.created).toBe(true);
      expect(created.object.metadata.generation).toBe(1);
      expect(gadgets.keys.key(undefined, 'g1')).toBe('/registry/example.kapi.dev/gadgets/g1');
      expect((await failure(gadgets.update({}, 'g1', body, { subresource: 'status' }))).message).toBe(
        'gadgets.example.kapi.dev has no status subresource',
      );
      const updated = await gadgets.update({}, 'g1', { ...body, spec: { n: 2 } });
      expect(updated.created).toBe(false);
      expect(updated.object.metadata.generation).toBe(2);
    });

    it('keeps immutable metadata: uid changes are 422, timestamps restored, names checked', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const uid = await failure(store.update(ns, 'w1', { ...w, metadata: { ...w.metadata, uid: 'other' } }));
      expect(uid.code).toBe(422);
      expect(uid.message).toBe('Widget.example.kapi.dev "w1" is invalid: metadata.uid: Invalid value: "other": field is immutable');
      const ts = await store.update(ns, 'w1', {
        ...w,
        metadata: { ...w.metadata, creationTimestamp: '2000-01-01T00:00:00Z', uid: undefined },
      });
      expect(ts.object.metadata.creationTimestamp).toBe(w.metadata.creationTimestamp);
      expect(ts.object.metadata.uid).toBe(w.metadata.uid);
      const name = await failure(store.update(ns, 'w1', { ...w, metadata: { ...w.metadata, name: 'w2' } }));
      expect(name.code).toBe(400);
      expect(name.message).toBe('the name of the object (w2) does not match the name on the URL (w1)');
    });

    it('refuses a body without a name (400, as kube-apiserver checkName does), on the object and its status', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const { name: _, ...nameless } = w.metadata;
      for (const subresource of [undefined, 'status'] as const) {
        for (const metadata of [nameless, { ...w.metadata, name: '' }]) {
          const err = await failure(store.update(ns, 'w1', { ...w, metadata }, { subresource }));
          expect(err.code).toBe(400);
          expect(err.reason).toBe('BadRequest');
          expect(err.message).toBe('the name of the object () does not match the name on the URL (w1)');
        }
      }
      const { metadata: _m, ...noMetadata } = w;
      expect((await failure(store.update(ns, 'w1', noMetadata))).message).toBe(
        'the name of the object () does not match the name on the URL (w1)',
      );
      // Nor is it created by a create-on-update PUT.
      expect((await failure(store.update(ns, 'w9', { ...widget('w9'), metadata: {} }))).code).toBe(400);
      expect((await store.get(ns, 'w1')).metadata.resourceVersion).toBe(w.metadata.resourceVersion);
    });

    it('validates the new object (422) and honours dryRun', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      expect((await failure(store.update(ns, 'w1', { ...w, spec: { replicas: 'x' } }))).code).toBe(422);
      const dry = await store.update(ns, 'w1', { ...w, spec: { replicas: 7 } }, { dryRun: true });
      expect(dry.object.spec).toEqual({ replicas: 7 });
      expect((await store.get(ns, 'w1')).spec).toEqual({ replicas: 1 });
    });

    it('deletes a terminating object when its last finalizer goes, and refuses new finalizers on it', async () => {
      await store.create(ns, widget('w1', {}, { finalizers: ['example.com/a'] }));
      const { object: terminating } = await store.delete(ns, 'w1');
      const more = await failure(
        store.update(ns, 'w1', { ...terminating, metadata: { ...terminating.metadata, finalizers: ['example.com/a', 'example.com/b'] } }),
      );
      expect(more.code).toBe(422);
      expect(more.message).toBe(
        'Widget.example.kapi.dev "w1" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}',
      );
      const res = await store.update(ns, 'w1', { ...terminating, metadata: { ...terminating.metadata, finalizers: [] } });
      expect(res.deleted).toBe(true);
      expect(Number(res.object.metadata.resourceVersion)).toBeGreaterThan(Number(terminating.metadata.resourceVersion));
      expect((await failure(store.get(ns, 'w1'))).code).toBe(404);
    });
  });

  describe('patch', () => {
    it('refuses a patch that removes or changes the name (400, as kube-apiserver checkName does)', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const removed = await failure(store.patch(ns, 'w1', { metadata: { name: null } }, 'merge'));
      expect(removed.code).toBe(400);
      expect(removed.message).toBe('the name of the object () does not match the name on the URL (w1)');
      expect((await failure(store.patch(ns, 'w1', [{ op: 'remove', path: '/metadata/name' }], 'json'))).message).toBe(
        'the name of the object () does not match the name on the URL (w1)',
      );
      expect((await failure(store.patch(ns, 'w1', { metadata: { name: 'w2' } }, 'strategic'))).message).toBe(
        'the name of the object (w2) does not match the name on the URL (w1)',
      );
      expect((await store.get(ns, 'w1')).metadata.resourceVersion).toBe(w.metadata.resourceVersion);
    });

    it('applies merge and JSON patches through the update path', async () => {
      await store.create(ns, widget('w1'));
      const merged = await store.patch(ns, 'w1', { spec: { replicas: 3 }, metadata: { labels: { a: 'b' } } }, 'merge');
      expect(merged.object.spec).toEqual({ replicas: 3 });
      expect(merged.object.metadata.generation).toBe(2);
      const json = await store.patch(ns, 'w1', [{ op: 'replace', path: '/spec/replicas', value: 4 }], 'json');
      expect(json.object.spec).toEqual({ replicas: 4 });
      const status = await store.patch(ns, 'w1', { status: { replicas: 4 }, spec: { replicas: 0 } }, 'merge', { subresource: 'status' });
      expect(status.object.status).toEqual({ replicas: 4 });
      expect(status.object.spec).toEqual({ replicas: 4 });
    });

    it('retries concurrent patches so no write is lost', async () => {
      await store.create(ns, widget('w1'));
      await Promise.all(Array.from({ length: 8 }, (_, i) => store.patch(ns, 'w1', { metadata: { labels: { [`l${i}`]: 'v' } } }, 'merge')));
      expect(Object.keys((await store.get(ns, 'w1')).metadata.labels ?? {})).toHaveLength(8);
    });

    it('answers 409 for a stale resourceVersion in the patch, 404 when missing, 422 when invalid', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      await store.patch(ns, 'w1', { spec: { replicas: 2 } }, 'merge');
      const stale = await failure(store.patch(ns, 'w1', { metadata: { resourceVersion: w.metadata.resourceVersion } }, 'merge'));
      expect(stale.code).toBe(409);
      expect((await failure(store.patch(ns, 'nope', { spec: {} }, 'merge'))).message).toBe('widgets.example.kapi.dev "nope" not found');
      expect((await failure(store.patch(ns, 'w1', { spec: { replicas: -2 } }, 'merge'))).code).toBe(422);
      expect((await failure(store.patch(ns, 'w1', [{ op: 'remove', path: '/spec/nothing' }], 'json'))).code).toBe(422);
    });

    it('warns on unknown fields the patch adds, and refuses them under Strict', async () => {
      await store.create(ns, widget('w1'));
      const res = await store.patch(ns, 'w1', { spec: { foo: 1 } }, 'merge');
      expect(res.warnings).toEqual(['unknown field "spec.foo"']);
      expect(res.object.spec).toEqual({ replicas: 1 });
      // Strict: kube's patchers refuse it as an Invalid value of `patch`, the patched object as Go's json.Marshal writes it.
      const strict = await failure(store.patch(ns, 'w1', { spec: { foo: 1 } }, 'merge', { fieldValidation: 'Strict' }));
      expect(strict.code).toBe(422);
      expect(strict.status.reason).toBe('Invalid');
      expect(strict.status.details?.causes?.[0]?.field).toBe('patch');
      expect(strict.message).toMatch(
        /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"example.kapi.dev\/v1\\",\\"kind\\":\\"Widget\\",\\"metadata\\":.*\\"spec\\":\{\\"foo\\":1,\\"replicas\\":1\}\}": strict decoding error: unknown field "spec.foo"$/,
      );
      expect((await store.get(ns, 'w1')).spec).toEqual({ replicas: 1 });
    });

    it('reports the strict errors of the patch document itself first (server-core finds its repeated keys); a strategic patch is shown as Go prints it', async () => {
      await store.create(ns, widget('w1'));
      const documentStrictErrors = ['duplicate field "spec.replicas"'];
      const warned = await store.patch(ns, 'w1', { spec: { replicas: 2, foo: 1 } }, 'merge', { documentStrictErrors });
      expect(warned.warnings).toEqual(['duplicate field "spec.replicas"', 'unknown field "spec.foo"']);
      expect(warned.object.spec).toEqual({ replicas: 2 });
      const ignored = await store.patch(ns, 'w1', { spec: { replicas: 3 } }, 'merge', { documentStrictErrors, fieldValidation: 'Ignore' });
      expect(ignored.warnings).toEqual([]);
      const smp = await failure(
        store.patch(ns, 'w1', { spec: { replicas: 4, foo: [1, 'a'] } }, 'strategic', { documentStrictErrors, fieldValidation: 'Strict' }),
      );
      expect(smp.code).toBe(422);
      expect(smp.message).toBe(
        ' "" is invalid: patch: Invalid value: "map[spec:map[foo:[1 a] replicas:4]]": strict decoding error: duplicate field "spec.replicas", unknown field "spec.foo"',
      );
      // Only duplicates, nothing unknown in what the patch made: still refused under Strict.
      const dupOnly = await failure(
        store.patch(ns, 'w1', { spec: { replicas: 5 } }, 'merge', { documentStrictErrors, fieldValidation: 'Strict' }),
      );
      expect(dupOnly.message).toContain('strict decoding error: duplicate field "spec.replicas"');
      expect((await store.get(ns, 'w1')).spec).toEqual({ replicas: 3 });
    });

    it("a create's or update's document strict errors (a YAML body's repeated keys) come first; Warn splits a YAML error into its lines", async () => {
      const yamlError = 'error converting YAML to JSON: yaml: unmarshal errors:\n  line 6: key "replicas" already set in map';
      const documentStrictErrors = [yamlError];
      const body = { ...widget('w1'), spec: { replicas: 2, foo: 1 } };
      const strict = await failure(store.create(ns, body, { documentStrictErrors, fieldValidation: 'Strict' }));
      expect(strict.code).toBe(400);
      expect(strict.message).toBe(
        `Widget in version "v1" cannot be handled as a Widget: strict decoding error: ${yamlError}, unknown field "spec.foo"`,
      );
      const created = await store.create(ns, body, { documentStrictErrors });
      expect(created.warnings).toEqual(['line 6: key "replicas" already set in map', 'unknown field "spec.foo"']);
      const ignored = await store.update(
        ns,
        'w1',
        { ...created.object, spec: { replicas: 3 } },
        { documentStrictErrors, fieldValidation: 'Ignore' },
      );
      expect(ignored.warnings).toEqual([]);
      const refused = await failure(
        store.update(ns, 'w1', { ...ignored.object, spec: { replicas: 4 } }, { documentStrictErrors, fieldValidation: 'Strict' }),
      );
      expect(refused.message).toBe(`Widget in version "v1" cannot be handled as a Widget: strict decoding error: ${yamlError}`);
      expect((await store.get(ns, 'w1')).spec).toEqual({ replicas: 3 });
    });

    it('a strategic merge patch merges metadata.finalizers as a set where a merge patch replaces the list', async () => {
      const w = widget('w1');
      w.metadata.finalizers = ['example.kapi.dev/a'];
      await store.create(ns, w);
      const smp = await store.patch(ns, 'w1', { metadata: { finalizers: ['example.kapi.dev/b'], labels: { x: '1' } } }, 'strategic');
      expect([...(smp.object.metadata.finalizers ?? [])].sort()).toEqual(['example.kapi.dev/a', 'example.kapi.dev/b']);
      expect(smp.object.metadata.labels).toMatchObject({ x: '1' });
      const merge = await store.patch(ns, 'w1', { metadata: { finalizers: ['example.kapi.dev/c'] } }, 'merge');
      expect(merge.object.metadata.finalizers).toEqual(['example.kapi.dev/c']);
    });

    it('takes apply patches (server-side apply: see managed-fields.test.ts); one of another kind is a 400', async () => {
      await store.create(ns, widget('w1'));
      const apply = await failure(store.patch(ns, 'w1', {}, 'apply', { fieldManager: 'm' }));
      expect(apply.code).toBe(400);
      expect(apply.message).toBe('invalid object type: /, Kind=');
    });

    it('refuses (409) an apply that would create an object naming a uid, as kube’s patcher does; the uid of an existing one is its own', async () => {
      const err = await failure(store.patch(ns, 'w2', widget('w2', {}, { uid: 'abc' }), 'apply', { fieldManager: 'm' }));
      expect([err.code, err.message]).toEqual([
        409,
        'Operation cannot be fulfilled on widgets.example.kapi.dev "w2": uid mismatch: the provided object specified uid abc, and no existing object was found',
      ]);
      expect((await failure(store.get(ns, 'w2'))).code).toBe(404);
      const created = await store.patch(ns, 'w2', widget('w2'), 'apply', { fieldManager: 'm' });
      expect(created.created).toBe(true);
      const again = await store.patch(ns, 'w2', widget('w2', {}, { uid: created.object.metadata.uid }), 'apply', { fieldManager: 'm' });
      expect(again.object.metadata.uid).toBe(created.object.metadata.uid);
    });
  });

  describe('delete', () => {
    it('removes an object without finalizers and returns its last state', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const res = await store.delete(ns, 'w1');
      expect(res.deleted).toBe(true);
      expect(res.object.metadata.uid).toBe(w.metadata.uid);
      expect(Number(res.object.metadata.resourceVersion)).toBeGreaterThan(Number(w.metadata.resourceVersion));
      const again = await failure(store.delete(ns, 'w1'));
      expect(again.code).toBe(404);
      expect(again.message).toBe('widgets.example.kapi.dev "w1" not found');
    });

    it('keeps an object with finalizers, terminating; a second delete is a no-op', async () => {
      await store.create(ns, widget('w1', {}, { finalizers: ['example.com/a'] }));
      clock.advance(1500);
      const first = await store.delete(ns, 'w1', { gracePeriodSeconds: 30 });
      expect(first.deleted).toBe(false);
      expect(first.object.metadata).toMatchObject({
        deletionTimestamp: '2026-01-02T03:04:07Z',
        deletionGracePeriodSeconds: 0,
        generation: 2,
        finalizers: ['example.com/a'],
      });
      clock.advance(60_000);
      const second = await store.delete(ns, 'w1');
      expect(second.deleted).toBe(false);
      expect(second.object.metadata.resourceVersion).toBe(first.object.metadata.resourceVersion);
      expect(second.object.metadata.deletionTimestamp).toBe('2026-01-02T03:04:07Z');
    });

    it('records foreground and orphan finalizers as kube does', async () => {
      await store.create(ns, widget('w1', {}, { finalizers: ['example.com/a'] }));
      const fg = await store.delete(ns, 'w1', { propagationPolicy: 'Foreground' });
      expect(fg.object.metadata.finalizers).toEqual(['example.com/a', 'foregroundDeletion']);
      await store.create(ns, widget('w2'));
      const orphan = await store.delete(ns, 'w2', { propagationPolicy: 'Orphan' });
      expect(orphan.deleted).toBe(false);
      expect(orphan.object.metadata.finalizers).toEqual(['orphan']);
      // Background drops the orphan finalizer; nothing keeps the object then.
      const bg = await store.delete(ns, 'w2', { propagationPolicy: 'Background' });
      expect(bg.deleted).toBe(true);
    });

    it('checks preconditions (409)', async () => {
      const { object: w } = await store.create(ns, widget('w1'));
      const uid = await failure(store.delete(ns, 'w1', { preconditions: { uid: 'other' } }));
      expect(uid.code).toBe(409);
      expect(uid.message).toBe(
        'Operation cannot be fulfilled on Widget.example.kapi.dev "w1": the UID in the precondition (other) does not match the UID in record (uid-1). The object might have been deleted and then recreated',
      );
      const rv = await failure(store.delete(ns, 'w1', { preconditions: { resourceVersion: '999' } }));
      expect(rv.message).toBe(
        `Operation cannot be fulfilled on Widget.example.kapi.dev "w1": the ResourceVersion in the precondition (999) does not match the ResourceVersion in record (${w.metadata.resourceVersion}). The object might have been modified`,
      );
      const ok = await store.delete(ns, 'w1', { preconditions: { uid: 'uid-1', resourceVersion: w.metadata.resourceVersion } });
      expect(ok.deleted).toBe(true);
    });

    it('dryRun changes nothing', async () => {
      await store.create(ns, widget('w1'));
      await store.create(ns, widget('w2', {}, { finalizers: ['example.com/a'] }));
      expect((await store.delete(ns, 'w1', { dryRun: true })).deleted).toBe(true);
      const kept = await store.delete(ns, 'w2', { dryRun: true });
      expect(kept.deleted).toBe(false);
      expect(kept.object.metadata.deletionTimestamp).toBeDefined();
      expect((await store.get(ns, 'w1')).metadata.name).toBe('w1');
      expect((await store.get(ns, 'w2')).metadata.deletionTimestamp).toBeUndefined();
    });
  });

  describe('deleteCollection', () => {
    it('deletes what the selectors match, leaving finalized objects terminating', async () => {
      await store.create(ns, widget('w1', {}, { labels: { app: 'x' } }));
      await store.create(ns, widget('w2', {}, { labels: { app: 'x' }, finalizers: ['example.com/a'] }));
      await store.create(ns, widget('w3', {}, { labels: { app: 'y' } }));
      const res = await store.deleteCollection(ns, { labelSelector: 'app=x', limit: 1 });
      expect(res.kind).toBe('WidgetList');
      expect(res.items.map((o) => o.metadata.name)).toEqual(['w1', 'w2']);
      const left = await store.list(ns);
      expect(left.items.map((o) => [o.metadata.name, !!o.metadata.deletionTimestamp])).toEqual([
        ['w2', true],
        ['w3', false],
      ]);
    });
  });
});

import { serviceUnavailable, useTestServer } from '@kapi/testing';
import { CustomObjectsApi, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { Informer } from './informer.ts';
import { CRDS } from './test-support/crds.ts';
import { eventually } from './test-support/eventually.ts';

const group = 'example.kapi.dev';
const kapi = useTestServer({ beforeEach, afterEach }, { crds: CRDS });
let api: CustomObjectsApi;
let informer: Informer<KubernetesObject>;
const errors: unknown[] = [];
let lists = 0;

beforeEach(() => {
  api = kapi.kubeConfig.makeApiClient(CustomObjectsApi);
  errors.length = 0;
  lists = 0;
  informer = new Informer(kapi.kubeConfig, {
    path: `/apis/${group}/v1/namespaces/default/parts`,
    list: () => {
      lists++;
      return api.listNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'parts' }) as Promise<
        KubernetesListObject<KubernetesObject>
      >;
    },
    baseDelayMs: 1,
    maxDelayMs: 5,
    onError: (err) => errors.push(err),
  });
});
afterEach(async () => {
  await informer.stop();
});

const create = (name: string) =>
  api.createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: 'default',
    plural: 'parts',
    body: { apiVersion: `${group}/v1`, kind: 'Part', metadata: { name } },
  });
const remove = (name: string) => api.deleteNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'parts', name });
const names = () =>
  informer
    .list('default')
    .map((o) => o.metadata?.name)
    .sort();

test('start resolves with the first list in the cache; then watch events keep it', async () => {
  await create('a');
  await informer.start();
  expect(informer.synced).toBe(true);
  expect(names()).toEqual(['a']);
  await create('b');
  await eventually(() => names().length === 2, 'b');
});

test('a watch ended cleanly resumes from its resourceVersion: a delete while it was down arrives', async () => {
  await create('a');
  await informer.start();
  const deleted: string[] = [];
  informer.on('delete', (o) => deleted.push(o.metadata?.name ?? ''));
  await eventually(async () => (await kapi.faults.endWatches({ resource: 'parts.example.kapi.dev' })) > 0, 'a watch');
  await remove('a');
  await eventually(() => deleted.includes('a'), 'the delete event');
  expect(names()).toEqual([]);
  expect(lists).toBe(1); // resumed, not relisted
});

test('a 410 Expired ERROR event relists: objects gone meanwhile get delete callbacks', async () => {
  await create('a');
  await create('b');
  await informer.start();
  const deleted: string[] = [];
  informer.on('delete', (o) => deleted.push(o.metadata?.name ?? ''));
  // Hold the relist until 'a' is deleted and the history compacted, so only the new list can tell of it.
  kapi.faults.failNext(2, serviceUnavailable(), { verb: 'list', resource: 'parts.example.kapi.dev' });
  await eventually(async () => (await kapi.faults.endWatches({ resource: 'parts.example.kapi.dev' }, { expired: true })) > 0, 'a watch');
  await remove('a');
  await kapi.faults.compact();
  await eventually(() => deleted.includes('a'), 'the delete callback');
  expect(names()).toEqual(['b']);
  expect(errors.length).toBeGreaterThan(0); // the failed lists, recovered from
  expect(lists).toBe(4); // the first, two failed, the relist that succeeded
});

test('a dropped connection stops client-node; the informer restarts it and keeps watching', async () => {
  await informer.start();
  await eventually(() => kapi.faults.dropConnections({ verb: 'watch', resource: 'parts.example.kapi.dev' }) > 0, 'a watch');
  await create('c');
  await eventually(() => names().includes('c'), 'c after the restart');
  expect(errors.length).toBeGreaterThan(0);
});

test('stop aborts the watch and does not count as an error', async () => {
  await informer.start();
  await informer.stop();
  await create('d');
  // A second informer seeing 'd' means the server has sent it to every watch; the stopped one has none.
  const other = new Informer<KubernetesObject>(kapi.kubeConfig, {
    path: `/apis/${group}/v1/namespaces/default/parts`,
    list: () =>
      api.listNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'parts' }) as Promise<
        KubernetesListObject<KubernetesObject>
      >,
  });
  let seen = false;
  other.on('add', () => {
    seen = true;
  });
  await other.start();
  await create('e');
  await eventually(() => seen && other.list('default').length === 2, 'e in the other informer');
  await other.stop();
  expect(names()).toEqual([]);
  expect(errors).toEqual([]);
});

import { Widget } from '@kapi/example-control-plane/widget';
import { conflict, serviceUnavailable, useTestServer } from '@kapi/testing';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { WIDGET_LABEL } from './example-kinds.ts';
import { ReplicaController } from './replica-controller.ts';
import { CRDS } from './test-support/crds.ts';
import { eventually } from './test-support/eventually.ts';
import { exampleClient } from './test-support/widgets.ts';

const kapi = useTestServer({ beforeEach, afterEach }, { resources: [Widget], crds: CRDS });
let client: ReturnType<typeof exampleClient>;
let controller: ReplicaController;
let stop: AbortController;
let running: Promise<void>;
const errors: unknown[] = [];

beforeEach(() => {
  client = exampleClient(kapi);
  errors.length = 0;
  controller = new ReplicaController({
    kubeConfig: kapi.kubeConfig,
    workers: 3,
    baseDelayMs: 1,
    maxDelayMs: 10,
    onError: (e) => errors.push(e),
  });
  stop = new AbortController();
  running = controller.run(stop.signal);
});
afterEach(async () => {
  stop.abort();
  await running;
});

const partsOf = (name: string) => client.parts(`${WIDGET_LABEL}=${name}`);
async function converged(name: string, n: number) {
  return eventually(async () => {
    const [w, parts] = await Promise.all([client.getWidget(name), partsOf(name)]);
    const live = parts.filter((p) => !p.metadata?.deletionTimestamp);
    return live.length === n && w.status?.replicas === n ? live : undefined;
  }, `${name} at ${n} replicas`);
}

test('keeps spec.replicas Parts owned by the Widget, scales up and down, reports status', async () => {
  const w = await client.createWidget('w', { replicas: 3 });
  const parts = await converged('w', 3);
  for (const p of parts) {
    expect(p.metadata?.name).toMatch(/^w-/);
    expect(p.metadata?.labels).toEqual({ [WIDGET_LABEL]: 'w' });
    expect(p.metadata?.ownerReferences).toEqual([
      { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', name: 'w', uid: w.metadata?.uid, controller: true, blockOwnerDeletion: true },
    ]);
  }
  expect((await client.getWidget('w')).status?.selector).toBe(`${WIDGET_LABEL}=w`);
  // The scale subresource reads them (kubectl scale, an autoscaler).
  const scale = await client.api.getNamespacedCustomObjectScale({
    group: 'example.kapi.dev',
    version: 'v1',
    namespace: 'default',
    plural: 'widgets',
    name: 'w',
  });
  expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 3 }, status: { replicas: 3, selector: `${WIDGET_LABEL}=w` } });

  await client.scale('w', 5);
  await converged('w', 5);
  await client.scale('w', 1);
  await converged('w', 1);
  expect(controller.stats).toMatchObject({ created: 5, deleted: 4 });
  expect(errors).toEqual([]);
});

test('scaling down deletes unbound Parts before bound ones', async () => {
  await client.createWidget('s', { replicas: 3 });
  const [, middle] = await converged('s', 3);
  const bound = middle?.metadata?.name ?? '';
  await client.api.patchNamespacedCustomObject({
    group: 'example.kapi.dev',
    version: 'v1',
    namespace: 'default',
    plural: 'parts',
    name: bound,
    body: [{ op: 'add', path: '/spec/machineName', value: 'm1' }],
  });
  await eventually(() => controller.parts.get(bound, 'default')?.spec?.machineName === 'm1', 'the binding in the cache');
  await client.scale('s', 1);
  const [left] = await converged('s', 1);
  expect(left?.metadata?.name).toBe(bound);
});

test('the garbage collector deletes the Parts with their Widget', async () => {
  await client.createWidget('gone', { replicas: 2 });
  await converged('gone', 2);
  await client.deleteWidget('gone');
  await eventually(async () => (await partsOf('gone')).length === 0, 'the Parts collected');
  expect(controller.stats.created).toBe(2);
});

test('foreground deletion: the Widget waits for its Parts, and the controller makes no new ones meanwhile', async () => {
  await client.createWidget('fg', { replicas: 3 });
  const [held] = await converged('fg', 3);
  const heldName = held?.metadata?.name ?? '';
  const parts = { group: 'example.kapi.dev', version: 'v1', namespace: 'default', plural: 'parts', name: heldName };
  // A finalizer keeps one Part (and so the Widget, foreground) terminating for as long as the test likes.
  await client.api.patchNamespacedCustomObject({
    ...parts,
    body: [{ op: 'add', path: '/metadata/finalizers', value: ['example.kapi.dev/hold'] }],
  });
  await client.api.deleteNamespacedCustomObject({ ...parts, plural: 'widgets', name: 'fg', propagationPolicy: 'Foreground' });
  await eventually(async () => {
    const left = await partsOf('fg');
    return (
      left.length === 1 && left[0]?.metadata?.deletionTimestamp && controller.widgets.get('fg', 'default')?.metadata?.deletionTimestamp
    );
  }, 'only the held Part left, terminating, and the Widget being deleted');
  await eventually(() => controller.idle && controller.parts.list('default').length === 1, 'the controller caught up');
  expect(controller.stats.created).toBe(3); // no replacements for a Widget being deleted
  await client.api.patchNamespacedCustomObject({ ...parts, body: [{ op: 'remove', path: '/metadata/finalizers' }] });
  await eventually(async () => !(await client.getWidget('fg').catch(() => undefined)), 'the Widget gone');
  expect(await partsOf('fg')).toEqual([]);
  expect(controller.stats.created).toBe(3);
});

test('adopts a matching orphan and releases a Part whose labels no longer match', async () => {
  await client.createPart('orphan', { [WIDGET_LABEL]: 'a' });
  await eventually(() => controller.parts.get('orphan', 'default'), 'the orphan in the cache');
  // The first adoption attempt loses a race (409): the Widget is synced again and adopts it then.
  kapi.faults.failNext(1, conflict(), { verb: 'update', resource: 'parts', name: 'orphan' });
  const w = await client.createWidget('a', { replicas: 2 });
  const parts = await converged('a', 2);
  const orphan = parts.find((p) => p.metadata?.name === 'orphan');
  expect(orphan?.metadata?.ownerReferences?.[0]?.uid).toBe(w.metadata?.uid);
  expect(controller.stats).toMatchObject({ adopted: 1, created: 1 });
  expect(controller.stats.retries).toBeGreaterThanOrEqual(1);

  // Relabel the adopted Part: the Widget releases it and makes another.
  await client.api.patchNamespacedCustomObject({
    group: 'example.kapi.dev',
    version: 'v1',
    namespace: 'default',
    plural: 'parts',
    name: 'orphan',
    body: [{ op: 'replace', path: `/metadata/labels/${WIDGET_LABEL.replace('/', '~1')}`, value: 'other' }],
  });
  await converged('a', 2);
  await eventually(async () => {
    const released = (await client.parts()).find((p) => p.metadata?.name === 'orphan');
    return released?.metadata?.ownerReferences === undefined || released.metadata.ownerReferences.length === 0;
  }, 'the release');
  expect(controller.stats.released).toBe(1);
});

test('a Part taken from its Widget by hand (ownerReference and labels removed) is replaced', async () => {
  await client.createWidget('o', { replicas: 2 });
  const [taken] = await converged('o', 2);
  const name = taken?.metadata?.name ?? '';
  await client.api.patchNamespacedCustomObject({
    group: 'example.kapi.dev',
    version: 'v1',
    namespace: 'default',
    plural: 'parts',
    name,
    body: [
      { op: 'remove', path: '/metadata/ownerReferences' },
      { op: 'replace', path: '/metadata/labels', value: { mine: 'now' } },
    ],
  });
  const parts = await converged('o', 2);
  expect(parts.map((p) => p.metadata?.name)).not.toContain(name);
  expect(controller.stats.created).toBe(3);
});

test('a 409 Conflict on the status update is retried until it succeeds', async () => {
  kapi.faults.failNext(2, conflict(), { verb: 'update', resource: 'widgets/status' });
  await client.createWidget('c', { replicas: 2 });
  await converged('c', 2);
  expect(controller.stats.retries).toBeGreaterThanOrEqual(2);
  expect(controller.stats.created).toBe(2);
});

test('a watch ended cleanly resumes: a Part deleted meanwhile is replaced', async () => {
  await client.createWidget('e', { replicas: 2 });
  const [first] = await converged('e', 2);
  await eventually(async () => (await kapi.faults.endWatches({ resource: 'parts.example.kapi.dev' })) > 0, 'a Part watch');
  await client.deletePart(first?.metadata?.name ?? '');
  const parts = await converged('e', 2);
  expect(parts.map((p) => p.metadata?.name)).not.toContain(first?.metadata?.name);
  expect(controller.stats.created).toBe(3);
});

test('a 410 Expired watch relists: a Part deleted while the watch was down is replaced', async () => {
  await client.createWidget('x', { replicas: 2 });
  const [first] = await converged('x', 2);
  // Hold the Part informer's relist (its lists fail) until the Part is gone and the history compacted.
  kapi.faults.failNext(3, serviceUnavailable(), { verb: 'list', resource: 'parts.example.kapi.dev', namespace: '' });
  await eventually(
    async () => (await kapi.faults.endWatches({ resource: 'parts.example.kapi.dev' }, { expired: true })) > 0,
    'a Part watch',
  );
  await client.deletePart(first?.metadata?.name ?? '');
  await kapi.faults.compact();
  const parts = await converged('x', 2);
  expect(parts.map((p) => p.metadata?.name)).not.toContain(first?.metadata?.name);
  expect(controller.stats.created).toBe(3);
});

test('expectations: syncs while the Part cache lags create nothing twice', async () => {
  await client.createWidget('ready', { replicas: 1 });
  await converged('ready', 1); // the informers are watching
  // The Part informer goes blind: its watch ends and reconnecting fails a while.
  kapi.faults.failNext(1_000_000, serviceUnavailable(), { verb: ['list', 'watch'], resource: 'parts.example.kapi.dev', namespace: '' });
  await eventually(async () => (await kapi.faults.endWatches({ resource: 'parts.example.kapi.dev' })) > 0, 'a Part watch');
  await client.createWidget('lag', { replicas: 2 });
  await eventually(async () => (await partsOf('lag')).length === 2, 'two Parts created');
  // More syncs of the Widget while its Parts are not in the cache yet.
  for (const color of ['red', 'green', 'blue']) {
    const w = await client.getWidget('lag');
    await client.api.replaceNamespacedCustomObject({
      group: 'example.kapi.dev',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'lag',
      body: { ...w, spec: { ...w.spec, color } },
    });
  }
  // Its event queued the Widget as it entered the cache; idle means that sync is done.
  await eventually(() => controller.widgets.get('lag', 'default')?.spec?.color === 'blue' && controller.idle, 'the last update synced');
  expect(controller.parts.list('default').filter((p) => p.metadata?.labels?.[WIDGET_LABEL] === 'lag')).toEqual([]); // still blind
  expect(controller.stats.created).toBe(3);
  kapi.faults.clear();
  await converged('lag', 2);
  expect(controller.stats.created).toBe(3);
});

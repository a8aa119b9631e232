import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedServingCertificate } from '@kapi/server-core';
import type { Storage } from '@kapi/storage';
import {
  ApiException,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  makeInformer,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Status,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { BACKENDS, startBackend, type TestBackend } from './test-support/backends.ts';
import { consistentReadFallbacks } from './test-support/consistent-read-fallbacks.ts';

// @kubernetes/client-node 2.x, unchanged, against the example control plane over HTTPS with the CA from the
// kubeconfig the control plane writes (TLS is verified), on every storage backend (memory, etcd, Redis).

const GROUP = 'example.kapi.dev';
const VERSION = 'v1';
const PLURAL = 'widgets';

interface Widget extends KubernetesObject {
  spec: { replicas?: number; color?: string; selector?: { matchLabels?: Record<string, string> } };
  status?: { replicas?: number; selector?: string };
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Polls `probe` until it returns something other than undefined/false; fails after `timeoutMs`. */
async function waitUntil<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The ApiException a rejected call threw. */
async function apiError(p: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiException);
    return err as ApiException<unknown>;
  }
  throw new Error('expected the call to fail');
}

/** The kube Status the server sent with an error (client-node leaves it as text or parses it, per content type). */
function statusOf(err: ApiException<unknown>): V1Status {
  return (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as V1Status;
}

async function startPlane(storage: Storage, opts: { minRequestTimeoutSeconds?: number } = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'kapi-client-node-'));
  const plane = await startControlPlane({ storage, port: 0, dataDir, ...opts });
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfigPath);
  return {
    plane,
    kc,
    close: async () => {
      await plane.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** apiserver_request_total for widgets, summed over codes, by verb. */
async function widgetRequests(plane: ControlPlane, verb: string): Promise<number> {
  const { values } = await plane.server.metrics.requestTotal.get();
  return values
    .filter((v) => v.labels.verb === verb && v.labels.resource === PLURAL && !v.labels.subresource)
    .reduce((n, v) => n + v.value, 0);
}

describe.each(BACKENDS)('on %s', (backendName) => {
  // One server per backend for this file; each control plane below stores apart on it.
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startBackend(backendName);
  }, 30_000);
  afterAll(async () => {
    await backend?.stop();
  }, 30_000);

  describe('@kubernetes/client-node 2.x against the example control plane', { timeout: 30_000 }, () => {
    let env: Awaited<ReturnType<typeof startPlane>>;
    let core: CoreV1Api;
    let custom: CustomObjectsApi;

    beforeAll(async () => {
      env = await startPlane(backend.storage());
      core = env.kc.makeApiClient(CoreV1Api);
      custom = env.kc.makeApiClient(CustomObjectsApi);
    }, 30_000);
    afterAll(async () => {
      await env?.close();
    }, 30_000);

    it('verifies the serving certificate against the kubeconfig CA', () => {
      const cluster = env.kc.getCurrentCluster();
      expect(cluster?.server).toBe(env.plane.url);
      expect(cluster?.server.startsWith('https://')).toBe(true);
      expect(cluster?.skipTLSVerify).toBeFalsy();
      expect(cluster?.caData ?? cluster?.caFile).toBeTruthy();
    });

    it('rejects the server when the kubeconfig trusts another CA', async () => {
      const other = await selfSignedServingCertificate();
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: env.plane.url, caData: Buffer.from(other.ca).toString('base64'), skipTLSVerify: false }],
        users: [{ name: 'u', token: env.plane.token }],
        contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
        currentContext: 'x',
      });
      const err = await kc
        .makeApiClient(CoreV1Api)
        .listNamespace()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(ApiException);
      expect(`${(err as Error).message} ${String((err as Error & { cause?: unknown }).cause)}`).toMatch(/certificate|self.signed|verify/i);
      // ... while the kubeconfig the control plane wrote works.
      expect((await env.kc.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata?.name)).toContain('default');
    });

    it('creates, reads, replaces, patches, lists and deletes ConfigMaps', async () => {
      const namespace = 'cm-crud';
      await core.createNamespace({ body: { metadata: { name: namespace } } });

      const created = await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: 'one', labels: { app: 'demo', tier: 'a' } }, data: { k: 'v' } },
      });
      expect(created.kind).toBe('ConfigMap');
      expect(created.apiVersion).toBe('v1');
      expect(created.metadata?.namespace).toBe(namespace);
      expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.metadata?.resourceVersion).toBeTruthy();
      expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'two', labels: { app: 'other' } }, data: { x: 'y' } } });

      const read = await core.readNamespacedConfigMap({ name: 'one', namespace });
      expect(read.data).toEqual({ k: 'v' });
      expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);

      const replaced = await core.replaceNamespacedConfigMap({ name: 'one', namespace, body: { ...read, data: { k: 'v2' } } });
      expect(replaced.data).toEqual({ k: 'v2' });
      expect(replaced.metadata?.resourceVersion).not.toBe(read.metadata?.resourceVersion);

      // A replace with the stale resourceVersion conflicts.
      const conflict = await apiError(core.replaceNamespacedConfigMap({ name: 'one', namespace, body: { ...read, data: { k: 'stale' } } }));
      expect(conflict.code).toBe(409);
      expect(statusOf(conflict)).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        details: { name: 'one', kind: 'configmaps' },
      });

      // JSON merge patch (client-node defaults to JSON patch; the Content-Type middleware picks the strategy).
      const merged = await core.patchNamespacedConfigMap(
        { name: 'one', namespace, body: { data: { extra: 'e', k: null }, metadata: { labels: { tier: null } } } },
        mergePatch,
      );
      expect(merged.data).toEqual({ extra: 'e' });
      expect(merged.metadata?.labels).toEqual({ app: 'demo' });

      // JSON patch, client-node's default for the patch calls.
      const jsonPatched = await core.patchNamespacedConfigMap({
        name: 'one',
        namespace,
        body: [{ op: 'add', path: '/data/j', value: 'p' }],
      });
      expect(jsonPatched.data).toEqual({ extra: 'e', j: 'p' });

      const strategic = await core.patchNamespacedConfigMap(
        { name: 'one', namespace, body: { data: { s: 'sm' } } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      expect(strategic.data).toEqual({ extra: 'e', j: 'p', s: 'sm' });

      const selected = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=demo' });
      expect(selected.kind).toBe('ConfigMapList');
      expect(selected.items.map((c: V1ConfigMap) => c.metadata?.name)).toEqual(['one']);
      expect(selected.metadata?.resourceVersion).toBeTruthy();
      const all = await core.listNamespacedConfigMap({ namespace });
      expect(all.items.map((c) => c.metadata?.name).sort()).toEqual(['one', 'two']);
      const notIn = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app notin (demo)' });
      expect(notIn.items.map((c) => c.metadata?.name)).toEqual(['two']);

      const dup = await apiError(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'one' } } }));
      expect(dup.code).toBe(409);
      expect(statusOf(dup)).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'AlreadyExists',
        code: 409,
        details: { name: 'one', kind: 'configmaps' },
      });

      const deleted = await core.deleteNamespacedConfigMap({ name: 'one', namespace });
      expect(deleted).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'one', kind: 'configmaps' } });

      const gone = await apiError(core.readNamespacedConfigMap({ name: 'one', namespace }));
      expect(gone.code).toBe(404);
      expect(statusOf(gone)).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
        message: 'configmaps "one" not found',
        details: { name: 'one', kind: 'configmaps' },
      });
      const goneAgain = await apiError(core.deleteNamespacedConfigMap({ name: 'one', namespace }));
      expect(goneAgain.code).toBe(404);
      expect(statusOf(goneAgain).reason).toBe('NotFound');
      const notPatched = await apiError(core.patchNamespacedConfigMap({ name: 'one', namespace, body: { data: { a: 'b' } } }, mergePatch));
      expect(notPatched.code).toBe(404);
    });

    it('creates, reads, replaces, patches, lists and deletes Secrets', async () => {
      const namespace = 'secret-crud';
      await core.createNamespace({ body: { metadata: { name: namespace } } });

      const created = await core.createNamespacedSecret({
        namespace,
        body: {
          metadata: { name: 's1', labels: { app: 'demo' } },
          type: 'Opaque',
          data: { user: Buffer.from('admin').toString('base64') },
        },
      });
      expect(created.kind).toBe('Secret');
      expect(created.type).toBe('Opaque');
      expect(created.data).toEqual({ user: Buffer.from('admin').toString('base64') });

      // stringData is write-only: merged into data (base64) and never returned.
      const withString = await core.createNamespacedSecret({ namespace, body: { metadata: { name: 's2' }, stringData: { token: 'abc' } } });
      expect(withString.data).toEqual({ token: Buffer.from('abc').toString('base64') });
      expect(withString.stringData).toBeUndefined();
      expect(withString.type).toBe('Opaque');

      const read = await core.readNamespacedSecret({ name: 's1', namespace });
      expect(read.data?.user).toBe(Buffer.from('admin').toString('base64'));

      const replaced = await core.replaceNamespacedSecret({
        name: 's1',
        namespace,
        body: { ...read, data: { user: Buffer.from('root').toString('base64') } },
      });
      expect(Buffer.from(replaced.data?.user ?? '', 'base64').toString()).toBe('root');

      const patched = await core.patchNamespacedSecret({ name: 's1', namespace, body: { stringData: { pass: 'pw' } } }, mergePatch);
      expect(patched.data).toEqual({ user: Buffer.from('root').toString('base64'), pass: Buffer.from('pw').toString('base64') });

      // The type of a Secret is immutable: an Invalid (422) Status.
      const invalid = await apiError(
        core.patchNamespacedSecret({ name: 's1', namespace, body: { type: 'kubernetes.io/tls' } }, mergePatch),
      );
      expect(invalid.code).toBe(422);
      expect(statusOf(invalid)).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });

      const selected = await core.listNamespacedSecret({ namespace, labelSelector: 'app=demo' });
      expect(selected.kind).toBe('SecretList');
      expect(selected.items.map((s) => s.metadata?.name)).toEqual(['s1']);

      const dup = await apiError(core.createNamespacedSecret({ namespace, body: { metadata: { name: 's1' } } }));
      expect(dup.code).toBe(409);
      expect(statusOf(dup)).toMatchObject({ reason: 'AlreadyExists', code: 409, details: { name: 's1', kind: 'secrets' } });

      await core.deleteNamespacedSecret({ name: 's1', namespace });
      const gone = await apiError(core.readNamespacedSecret({ name: 's1', namespace }));
      expect(gone.code).toBe(404);
      expect(statusOf(gone)).toMatchObject({
        reason: 'NotFound',
        code: 404,
        message: 'secrets "s1" not found',
        details: { name: 's1', kind: 'secrets' },
      });
      expect((await core.listNamespacedSecret({ namespace })).items.map((s) => s.metadata?.name)).toEqual(['s2']);
    });

    it('drives widgets with CustomObjectsApi: CRUD, status and scale', async () => {
      const namespace = 'widgets-crud';
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      const at = { group: GROUP, version: VERSION, plural: PLURAL, namespace };

      const created = (await custom.createNamespacedCustomObject({
        ...at,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Widget',
          metadata: { name: 'w1', labels: { app: 'demo' } },
          spec: { color: 'red' },
        },
      })) as Widget;
      expect(created).toMatchObject({
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Widget',
        metadata: { name: 'w1', namespace, generation: 1 },
      });
      expect(created.spec).toEqual({ replicas: 1, color: 'red' }); // defaulted
      expect(created.status).toBeUndefined();

      const got = (await custom.getNamespacedCustomObject({ ...at, name: 'w1' })) as Widget;
      expect(got.metadata?.uid).toBe(created.metadata?.uid);

      await custom.createNamespacedCustomObject({
        ...at,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'w2' }, spec: { color: 'blue' } },
      });
      const list = (await custom.listNamespacedCustomObject({ ...at, labelSelector: 'app=demo' })) as { kind: string; items: Widget[] };
      expect(list.kind).toBe('WidgetList');
      expect(list.items.map((w) => w.metadata?.name)).toEqual(['w1']);
      const all = (await custom.listNamespacedCustomObject(at)) as { items: Widget[] };
      expect(all.items.map((w) => w.metadata?.name).sort()).toEqual(['w1', 'w2']);

      // patchNamespacedCustomObject: merge patch of the spec bumps the generation.
      const patched = (await custom.patchNamespacedCustomObject(
        { ...at, name: 'w1', body: { spec: { color: 'green' } } },
        mergePatch,
      )) as Widget;
      expect(patched.spec).toEqual({ replicas: 1, color: 'green' });
      expect(patched.metadata?.generation).toBe(2);
      // ... and a JSON patch (client-node's default).
      const jsonPatched = (await custom.patchNamespacedCustomObject({
        ...at,
        name: 'w1',
        body: [{ op: 'replace', path: '/spec/color', value: 'yellow' }],
      })) as Widget;
      expect(jsonPatched.spec.color).toBe('yellow');

      // The main resource ignores status; the status subresource ignores everything but status.
      const ignored = (await custom.patchNamespacedCustomObject(
        { ...at, name: 'w1', body: { status: { replicas: 9 } } },
        mergePatch,
      )) as Widget;
      expect(ignored.status).toBeUndefined();
      const withStatus = (await custom.replaceNamespacedCustomObjectStatus({
        ...at,
        name: 'w1',
        body: { ...jsonPatched, spec: { replicas: 7, color: 'ignored' }, status: { replicas: 1, selector: 'app=demo' } },
      })) as Widget;
      expect(withStatus.status).toEqual({ replicas: 1, selector: 'app=demo' });
      expect(withStatus.spec).toEqual({ replicas: 1, color: 'yellow' });
      expect(withStatus.metadata?.generation).toBe(jsonPatched.metadata?.generation);
      const statusRead = (await custom.getNamespacedCustomObjectStatus({ ...at, name: 'w1' })) as Widget;
      expect(statusRead.status?.replicas).toBe(1);

      // scale subresource: autoscaling/v1 Scale.
      const scale = (await custom.getNamespacedCustomObjectScale({ ...at, name: 'w1' })) as Record<string, unknown>;
      expect(scale).toMatchObject({
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'w1', namespace },
        spec: { replicas: 1 },
        status: { replicas: 1, selector: 'app=demo' },
      });
      const scaled = (await custom.patchNamespacedCustomObjectScale(
        { ...at, name: 'w1', body: { spec: { replicas: 5 } } },
        mergePatch,
      )) as Record<string, unknown>;
      expect(scaled).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
      expect(((await custom.getNamespacedCustomObject({ ...at, name: 'w1' })) as Widget).spec.replicas).toBe(5);
      const jsonScaled = (await custom.patchNamespacedCustomObjectScale({
        ...at,
        name: 'w1',
        body: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
      })) as Record<string, unknown>;
      expect(jsonScaled).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });

      // Schema validation: a negative replica count is Invalid.
      const invalid = await apiError(
        custom.patchNamespacedCustomObject({ ...at, name: 'w1', body: { spec: { replicas: -1 } } }, mergePatch),
      );
      expect(invalid.code).toBe(422);
      expect(statusOf(invalid)).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        code: 422,
        details: { name: 'w1', group: GROUP, kind: 'Widget' },
      });

      const dup = await apiError(
        custom.createNamespacedCustomObject({
          ...at,
          body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'w1' }, spec: {} },
        }),
      );
      expect(dup.code).toBe(409);
      expect(statusOf(dup)).toMatchObject({ reason: 'AlreadyExists', details: { name: 'w1', group: GROUP, kind: 'widgets' } });

      const deleted = (await custom.deleteNamespacedCustomObject({ ...at, name: 'w1' })) as Record<string, unknown>;
      expect(deleted).toMatchObject({ kind: 'Widget', metadata: { name: 'w1' } });
      const gone = await apiError(custom.getNamespacedCustomObject({ ...at, name: 'w1' }));
      expect(gone.code).toBe(404);
      expect(statusOf(gone)).toMatchObject({
        kind: 'Status',
        reason: 'NotFound',
        code: 404,
        message: `widgets.${GROUP} "w1" not found`,
        details: { name: 'w1', group: GROUP, kind: 'widgets' },
      });
      const scaleGone = await apiError(custom.getNamespacedCustomObjectScale({ ...at, name: 'w1' }));
      expect(scaleGone.code).toBe(404);
    });

    it('Watch sees ADDED, MODIFIED and DELETED widgets', async () => {
      const namespace = 'widgets-watch';
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      const at = { group: GROUP, version: VERSION, plural: PLURAL, namespace };
      const list = (await custom.listNamespacedCustomObject(at)) as { metadata: { resourceVersion: string } };

      const events: { type: string; name?: string; color?: string; rv?: string }[] = [];
      let ended: unknown = 'open';
      const controller = await new Watch(env.kc).watch(
        `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/widgets`,
        { resourceVersion: list.metadata.resourceVersion },
        (type, obj: Widget) => events.push({ type, name: obj.metadata?.name, color: obj.spec?.color, rv: obj.metadata?.resourceVersion }),
        (err) => {
          ended = err;
        },
      );
      try {
        await custom.createNamespacedCustomObject({
          ...at,
          body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'watched' }, spec: { color: 'red' } },
        });
        await custom.patchNamespacedCustomObject({ ...at, name: 'watched', body: { spec: { color: 'blue' } } }, mergePatch);
        const deleted = (await custom.deleteNamespacedCustomObject({ ...at, name: 'watched' })) as Widget;
        await waitUntil('three watch events', () => events.length >= 3);
        expect(events.map(({ type, name, color }) => ({ type, name, color }))).toEqual([
          { type: 'ADDED', name: 'watched', color: 'red' },
          { type: 'MODIFIED', name: 'watched', color: 'blue' },
          { type: 'DELETED', name: 'watched', color: 'blue' },
        ]);
        expect(events[2]?.rv).toBe(deleted.metadata?.resourceVersion);
        expect(ended).toBe('open');
      } finally {
        controller.abort();
      }
    });

    it('RbacAuthorizationV1Api and SubjectAccessReview: a binding made through the typed client is what RBAC decides by', async () => {
      const rbac = env.kc.makeApiClient(RbacAuthorizationV1Api);
      const authz = env.kc.makeApiClient(AuthorizationV1Api);
      const namespace = 'rbac-client';
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      await rbac.createNamespacedRole({
        namespace,
        body: { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] },
      });
      await rbac.createNamespacedRoleBinding({
        namespace,
        body: {
          metadata: { name: 'carol-cm' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
        },
      });
      const review = (verb: string, ns: string) =>
        authz.createSubjectAccessReview({
          body: {
            spec: { user: 'carol', groups: ['system:authenticated'], resourceAttributes: { namespace: ns, verb, resource: 'configmaps' } },
          },
        });
      // RBAC reads bindings from its watch-fed cache: the binding is there a moment after the write.
      await waitUntil('the binding to reach RBAC', async () => (await review('get', namespace)).status?.allowed === true);
      const allowed = await review('list', namespace);
      expect(allowed.status).toEqual({
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "carol-cm/rbac-client" of Role "cm-reader" to User "carol"',
      });
      expect((await review('delete', namespace)).status?.allowed).toBe(false);
      expect((await review('get', 'default')).status?.allowed).toBe(false);
      const roles = await rbac.listNamespacedRole({ namespace });
      expect(roles.items.map((r) => r.metadata?.name)).toEqual(['cm-reader']);
      expect((await rbac.readClusterRole({ name: 'view' })).aggregationRule?.clusterRoleSelectors).toEqual([
        { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      ]);
    });

    // Last, after every call above: no consistent read waited out the freshness timeout (3 s a read on etcd 3.4 in issue 10).
    it('no consistent read waited out the freshness timeout', () => {
      expect(consistentReadFallbacks(env.plane.server)).toEqual({});
    });
  });

  describe('a client-node informer on widgets', { timeout: 60_000 }, () => {
    let env: Awaited<ReturnType<typeof startPlane>>;

    beforeAll(async () => {
      // Every watch without timeoutSeconds (client-node's never send one) ends after 1–2 s.
      env = await startPlane(backend.storage(), { minRequestTimeoutSeconds: 1 });
    }, 30_000);
    afterAll(async () => {
      await env?.close();
    }, 30_000);

    it('sees adds, updates and deletes, and resumes from its resourceVersion without relisting when the server ends the watch', async () => {
      const namespace = 'informed';
      const core = env.kc.makeApiClient(CoreV1Api);
      const custom = env.kc.makeApiClient(CustomObjectsApi);
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      const at = { group: GROUP, version: VERSION, plural: PLURAL, namespace };
      const widget = (name: string, color: string) => ({
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Widget',
        metadata: { name },
        spec: { color },
      });
      await custom.createNamespacedCustomObject({ ...at, body: widget('before', 'red') });

      const informer = makeInformer<Widget>(env.kc, `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/widgets`, () =>
        custom.listNamespacedCustomObject(at),
      );
      const seen: string[] = [];
      const errors: unknown[] = [];
      let connects = 0;
      informer.on('add', (w) => seen.push(`add ${w.metadata?.name} ${w.spec.color}`));
      informer.on('update', (w) => seen.push(`update ${w.metadata?.name} ${w.spec.color}`));
      informer.on('delete', (w) => seen.push(`delete ${w.metadata?.name}`));
      informer.on('error', (err) => errors.push(err));
      informer.on('connect', () => {
        connects++;
      });
      await informer.start();
      try {
        await waitUntil('the initial list', () => seen.includes('add before red'));
        expect(informer.list(namespace).map((w) => w.metadata?.name)).toEqual(['before']);

        await custom.createNamespacedCustomObject({ ...at, body: widget('during', 'green') });
        await waitUntil('the add', () => seen.includes('add during green'));
        await custom.patchNamespacedCustomObject({ ...at, name: 'during', body: { spec: { color: 'blue' } } }, mergePatch);
        await waitUntil('the update', () => seen.includes('update during blue'));
        await custom.deleteNamespacedCustomObject({ ...at, name: 'before' });
        await waitUntil('the delete', () => seen.includes('delete before'));
        expect(informer.list(namespace).map((w) => w.metadata?.name)).toEqual(['during']);

        // The server ends each watch after 1–2 s; the informer re-watches from its last resourceVersion.
        await waitUntil('two watches ended by the server', async () => (await widgetRequests(env.plane, 'WATCH')) >= 2, 20_000);

        // Changes made after the reconnects still arrive (including any made between two watches).
        await custom.createNamespacedCustomObject({ ...at, body: widget('after', 'white') });
        await custom.patchNamespacedCustomObject({ ...at, name: 'during', body: { spec: { color: 'black' } } }, mergePatch);
        await waitUntil(
          'the events after the reconnect',
          () => seen.includes('add after white') && seen.includes('update during black'),
          20_000,
        );
        await custom.deleteNamespacedCustomObject({ ...at, name: 'during' });
        await waitUntil('the delete after the reconnect', () => seen.includes('delete during'), 20_000);
        expect(informer.list(namespace).map((w) => w.metadata?.name)).toEqual(['after']);

        expect(seen).toEqual([
          'add before red',
          'add during green',
          'update during blue',
          'delete before',
          'add after white',
          'update during black',
          'delete during',
        ]);
        expect(errors).toEqual([]);
        expect(connects).toBeGreaterThanOrEqual(2);
        // One LIST (the informer's first), never a relist; at least two WATCHes ended by the server.
        expect(await widgetRequests(env.plane, 'LIST')).toBe(1);
        expect(await widgetRequests(env.plane, 'WATCH')).toBeGreaterThanOrEqual(2);
      } finally {
        await informer.stop();
      }
    });
  });
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  PatchStrategy,
  setHeaderOptions,
  type V1ManagedFieldsEntry,
  type V1Status,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { BACKENDS, startBackend, type TestBackend } from './test-support/backends.ts';
import { GADGET_CRD, GADGET_CRD_NAME, GADGET_GROUP, gadget } from './test-support/gadget-crd.ts';
import { type KubectlResult, runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * Server-side apply end to end, as kube-apiserver does it: the real kubectl (1.32) `apply --server-side` on a
 * ConfigMap and on a custom resource whose CRD has a map list, a set and an atomic list (test-support/gadget-crd.ts),
 * on memory, etcd and Redis. Two managers share an object; a conflict prints kube's message and kubectl's advice;
 * `--force-conflicts` takes the fields over; a field a manager stops applying goes away when nobody else owns it;
 * `--dry-run=server` changes nothing; kubectl's client-side apply migrates to server-side; a controller applies
 * status through client-node (application/apply-patch+yaml on the status subresource). managedFields are compared
 * with the entries kube writes (manager, operation, apiVersion, subresource, fieldsV1).
 */

const [KUBECTL] = kubectlBinaries(['kubectl']) as [string];
const T = 60_000;

/** kubectl's advice after a conflict (apply.go), printed after the server's message. */
const ADVICE = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the \`--force-conflicts\` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`;

interface Entry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
  fieldsType?: string;
  fieldsV1?: object;
}

/**
 * An object's managedFields without their times, sorted by manager then operation. Each entry the server wrote has a
 * time (a Date from client-node's typed clients, RFC 3339 seconds from the custom objects API); entries a client
 * wrote itself keep what it sent (kubectl's managedFields migration sends none), so `untimed` names those. Sorted by
 * code point, not locale (which would put "kubectl-last-applied" before "kubectl").
 */
function managed(obj: KubernetesObject, untimed: readonly string[] = []): Entry[] {
  const entries: V1ManagedFieldsEntry[] = obj.metadata?.managedFields ?? [];
  for (const e of entries) {
    const time = e.time as Date | string | undefined;
    if (untimed.includes(e.manager ?? '')) expect(time, `${e.manager} has no time`).toBeUndefined();
    else if (typeof time === 'string') expect(time, `${e.manager} has a time`).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    else expect(time, `${e.manager} has a time`).toBeInstanceOf(Date);
  }
  return entries
    .map(({ manager, operation, apiVersion, subresource, fieldsType, fieldsV1 }) => ({
      manager,
      operation,
      apiVersion,
      ...(subresource ? { subresource } : {}),
      fieldsType,
      fieldsV1,
    }))
    .sort((x, y) => byCodePoint(x.manager, y.manager) || byCodePoint(x.operation, y.operation));
}

const byCodePoint = (x = '', y = ''): number => (x < y ? -1 : x > y ? 1 : 0);

const applied = (manager: string, apiVersion: string, fieldsV1: object, subresource?: string): Entry => ({
  manager,
  operation: 'Apply',
  apiVersion,
  ...(subresource ? { subresource } : {}),
  fieldsType: 'FieldsV1',
  fieldsV1,
});

/** The Status a client-node call was refused with. */
async function refused(p: Promise<unknown>): Promise<V1Status> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiException);
  const body = (err as ApiException<unknown>).body;
  return (typeof body === 'string' ? JSON.parse(body) : body) as V1Status;
}

const SSA = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

const configMap = (name: string, data: Record<string, string>) =>
  `${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data })}\n`;

describe.each(BACKENDS)('server-side apply with kubectl on %s', (backendName) => {
  let backend: TestBackend;
  let cp: ControlPlane;
  let tmp: string;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let files = 0;

  beforeAll(async () => {
    backend = await startBackend(backendName);
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-apply-', { storage: backend.storage() }));
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    core = kc.makeApiClient(CoreV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
  }, T);
  afterAll(async () => {
    await stopTempControlPlane(cp, tmp);
    await backend?.stop();
  }, T);

  const kubectl = (args: readonly string[]): Promise<KubectlResult> => runKubectl(KUBECTL, tmp, cp.kubeconfigPath, args);
  /** `kubectl apply <flags> -f <manifest>`, the manifest written to a file of its own. */
  async function apply(manifest: string, flags: readonly string[]): Promise<KubectlResult> {
    const file = join(tmp, `manifest-${files++}.yaml`);
    await writeFile(file, manifest);
    return kubectl(['apply', ...flags, '-f', file]);
  }
  async function applyOK(manifest: string, flags: readonly string[]): Promise<string> {
    return succeeded(['apply', ...flags], await apply(manifest, flags));
  }
  const readCM = (name: string) => core.readNamespacedConfigMap({ name, namespace: 'default' });

  it('ConfigMap: two managers, a conflict, --force-conflicts, removal of what a manager stops applying, --dry-run=server, an undeclared field', {
    timeout: T,
  }, async () => {
    // Apply creates: the manager owns exactly what it applied (name and namespace are never owned).
    expect(await applyOK(configMap('ssa', { key: 'one', a: 'x' }), ['--server-side', '--field-manager=a'])).toBe(
      'configmap/ssa serverside-applied\n',
    );
    expect(await applyOK(configMap('ssa', { b: 'y' }), ['--server-side', '--field-manager=b'])).toBe('configmap/ssa serverside-applied\n');
    let cm = await readCM('ssa');
    expect(cm.data).toEqual({ a: 'x', b: 'y', key: 'one' });
    expect(managed(cm)).toEqual([
      applied('a', 'v1', { 'f:data': { 'f:a': {}, 'f:key': {} } }),
      applied('b', 'v1', { 'f:data': { 'f:b': {} } }),
    ]);

    // b wants a's field with another value: kube's message, kubectl's advice, nothing written.
    const conflict = await apply(configMap('ssa', { b: 'y', key: 'two' }), ['--server-side', '--field-manager=b']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toBe(`error: Apply failed with 1 conflict: conflict with "a": .data.key\n${ADVICE}`);
    // The same through client-node: 409 Conflict with one FieldManagerConflict cause per field, managers sorted.
    const status = await refused(
      core.patchNamespacedConfigMap(
        {
          name: 'ssa',
          namespace: 'default',
          fieldManager: 'b',
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a: 'z', b: 'y', key: 'two' } },
        },
        SSA,
      ),
    );
    expect(status).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 2 conflicts: conflicts with "a":\n- .data.a\n- .data.key',
      details: {
        causes: [
          // StatusCause's type is "reason" on the wire.
          { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.a' },
          { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.key' },
        ],
      },
    });
    expect((await readCM('ssa')).data).toEqual({ a: 'x', b: 'y', key: 'one' });

    // --force-conflicts: b takes .data.key from a.
    await applyOK(configMap('ssa', { b: 'y', key: 'two' }), ['--server-side', '--field-manager=b', '--force-conflicts']);
    cm = await readCM('ssa');
    expect(cm.data).toEqual({ a: 'x', b: 'y', key: 'two' });
    expect(managed(cm)).toEqual([
      applied('a', 'v1', { 'f:data': { 'f:a': {} } }),
      applied('b', 'v1', { 'f:data': { 'f:b': {}, 'f:key': {} } }),
    ]);

    // a stops applying .data.a (nobody else owns it: removed) and applies b's value of .data.key (shared: no conflict).
    await applyOK(configMap('ssa', { key: 'two' }), ['--server-side', '--field-manager=a']);
    cm = await readCM('ssa');
    expect(cm.data).toEqual({ b: 'y', key: 'two' });
    expect(managed(cm)).toEqual([
      applied('a', 'v1', { 'f:data': { 'f:key': {} } }),
      applied('b', 'v1', { 'f:data': { 'f:b': {}, 'f:key': {} } }),
    ]);

    // --dry-run=server answers as if applied and stores nothing.
    expect(await applyOK(configMap('ssa', { b: 'changed', key: 'two' }), ['--server-side', '--field-manager=b', '--dry-run=server'])).toBe(
      'configmap/ssa serverside-applied (server dry run)\n',
    );
    const after = await readCM('ssa');
    expect(after.data).toEqual({ b: 'y', key: 'two' });
    expect(after.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);

    // A field the kind does not declare: the configuration cannot be typed (kube's typeconverter), a 400.
    const unknown = await apply(`${JSON.stringify({ ...JSON.parse(configMap('ssa', { b: 'y' })), foo: 1 })}\n`, [
      '--server-side',
      '--field-manager=b',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'Error from server (BadRequest): failed to create typed patch object (default/ssa; /v1, Kind=ConfigMap): .foo: field not declared in schema\n',
    );
  });

  it('ConfigMap: a conflict with an Update manager names its API version', { timeout: T }, async () => {
    succeeded(['create'], await kubectl(['create', 'configmap', 'updated', '--from-literal=key=one', '--field-manager=x']));
    expect(managed(await readCM('updated'))).toEqual([
      { manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:key': {} } } },
    ]);
    const conflict = await apply(configMap('updated', { key: 'two' }), ['--server-side']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toBe(`error: Apply failed with 1 conflict: conflict with "x" using v1: .data.key\n${ADVICE}`);
  });

  // 40,000 keys of 19-byte values: 1.04 MB of data (under ConfigMap's 1 MiB), 1.3 MB as JSON — and 0.6 MB more of
  // fieldsV1 when one manager owns every key (`"f:k-00000":{}` each), past etcd's 1.5 MiB request limit (Redis storage
  // keeps the same limit; memory has none).
  it('ConfigMap: an object its managedFields make too large for the storage is written without them, as kube retries it; an apply is not', {
    timeout: T,
  }, async () => {
    const data = (v: string) =>
      Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k-${String(i).padStart(5, '0')}`, v.repeat(19)]));
    const limited = backendName !== 'memory';
    const body = (name: string, v: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
      data: data(v),
    });
    const owners = (o: { metadata?: { managedFields?: V1ManagedFieldsEntry[] } }) => o.metadata?.managedFields?.length ?? 0;
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: body('big', 'a') });
    expect(Object.keys(created.data ?? {})).toHaveLength(40_000);
    expect(owners(created)).toBe(limited ? 0 : 1);
    // Every value changed: the writer (the same manager, client-node's) would own every key again.
    const updated = await core.replaceNamespacedConfigMap({ name: 'big', namespace: 'default', body: body('big', 'b') });
    expect(updated.data?.['k-39999']).toBe('b'.repeat(19));
    expect(owners(updated)).toBe(limited ? 0 : 1);
    const patched = await core.patchNamespacedConfigMap(
      { name: 'big', namespace: 'default', fieldManager: 'patcher', body: { data: data('c') } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.data?.['k-00001']).toBe('c'.repeat(19));
    expect(owners(patched)).toBe(limited ? 0 : 2);
    expect((await readCM('big')).metadata?.managedFields?.length ?? 0).toBe(limited ? 0 : 2);
    // An apply's managedFields are what it is for: kube does not retry it without them.
    const applying = core.patchNamespacedConfigMap(
      { name: 'big-applied', namespace: 'default', fieldManager: 'a', body: body('big-applied', 'a') },
      SSA,
    );
    if (!limited) expect(owners(await applying)).toBe(1);
    else {
      const status = await refused(applying);
      expect([status.code, status.reason]).toEqual([413, 'RequestEntityTooLarge']);
      expect((await core.listNamespacedConfigMap({ namespace: 'default', fieldSelector: 'metadata.name=big-applied' })).items).toEqual([]);
    }
  });

  it('ConfigMap: client-side apply, then --server-side takes over what client-side apply owned', { timeout: T }, async () => {
    expect(await applyOK(configMap('migrate', { p: '1', q: '2' }), [])).toBe('configmap/migrate created\n');
    let cm = await readCM('migrate');
    expect(managed(cm)).toEqual([
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:data': { '.': {}, 'f:p': {}, 'f:q': {} },
          'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
        },
      },
    ]);

    // kubectl 1.32 sends: the apply (manager kubectl; the server rewrites the last-applied annotation from it, as
    // kube's lastAppliedUpdater does for "kubectl"), an apply of that annotation as kubectl-last-applied, a JSON patch
    // moving kubectl-client-side-apply's fields into kubectl's Apply entry (managedFields without times, and the
    // resourceVersion), then the apply again — which now removes q, kubectl's alone.
    expect(await applyOK(configMap('migrate', { p: '1' }), ['--server-side'])).toBe('configmap/migrate serverside-applied\n');
    cm = await readCM('migrate');
    expect(cm.data).toEqual({ p: '1' });
    expect(cm.metadata?.annotations).toEqual({
      'kubectl.kubernetes.io/last-applied-configuration':
        '{"apiVersion":"v1","data":{"p":"1"},"kind":"ConfigMap","metadata":{"name":"migrate","namespace":"default"}}\n',
    });
    expect(managed(cm, ['kubectl-last-applied'])).toEqual([
      applied('kubectl', 'v1', { 'f:data': { 'f:p': {} } }),
      applied('kubectl-last-applied', 'v1', {
        'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
      }),
    ]);
  });

  it('a manifest with blank values, as kube decodes it; kubectl diff of an applied object shows only what changes', {
    timeout: T,
  }, async () => {
    // What a Helm template renders for unset values: `app:`, `note:` and `key:` are YAML nulls, which kubectl create
    // sends as they are and Go decodes as "" (they were a 422: "must be a map of string keys to string values").
    const blank = join(tmp, 'blank.yaml');
    await writeFile(
      blank,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blank\n  labels:\n    app:\n  annotations:\n    note:\ndata:\n  key:\nbinaryData:\n',
    );
    expect(succeeded(['create'], await kubectl(['create', '-f', blank]))).toBe('configmap/blank created\n');
    const cm = await readCM('blank');
    expect([cm.metadata?.labels, cm.metadata?.annotations, cm.data, cm.binaryData]).toEqual([
      { app: '' },
      { note: '' },
      { key: '' },
      undefined,
    ]);

    // kubectl diff's dry-run patch of an object without last-applied configuration carries `annotations: {}`, which
    // Go's omitempty leaves out: the diff is the changed value alone (it showed a spurious `annotations: {}`).
    await applyOK(configMap('diffed', { a: '1', b: '2' }), ['--server-side']);
    const file = join(tmp, 'diffed.yaml');
    await writeFile(file, configMap('diffed', { a: '1', b: '3' }));
    for (const flags of [[], ['--server-side']]) {
      const diff = await kubectl(['diff', ...flags, '-f', file]);
      expect(diff.code, diff.stderr).toBe(1); // kubectl diff exits 1 when there are differences
      expect(diff.stdout.split('\n').filter((l) => /^[-+] /.test(l))).toEqual(['-  b: "2"', '+  b: "3"']);
    }
  });

  it('built-in list types as kube’s: ServiceAccount secrets merge by name (atomic items), imagePullSecrets are atomic', {
    timeout: T,
  }, async () => {
    const sa = (manager: string, fields: Record<string, unknown>) =>
      core.patchNamespacedServiceAccount(
        {
          name: 'ssa',
          namespace: 'default',
          fieldManager: manager,
          body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'ssa' }, ...fields },
        },
        SSA,
      );
    await sa('one', { secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'p1' }] });
    const merged = await sa('two', { secrets: [{ name: 's2', namespace: 'default' }] });
    expect(merged.secrets).toEqual([{ name: 's1' }, { name: 's2', namespace: 'default' }]);
    expect(managed(merged)).toEqual([
      applied('one', 'v1', { 'f:imagePullSecrets': {}, 'f:secrets': { 'k:{"name":"s1"}': {} } }),
      applied('two', 'v1', { 'f:secrets': { 'k:{"name":"s2"}': {} } }),
    ]);
    const status = await refused(sa('two', { secrets: [{ name: 's2', namespace: 'default' }], imagePullSecrets: [{ name: 'p2' }] }));
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "one": .imagePullSecrets');
  });

  it('custom resource: map, set and atomic lists merged by ownership; conflicts, force, removal; status applied by a controller', {
    timeout: T,
  }, async () => {
    expect(await applyOK(GADGET_CRD, ['--server-side'])).toBe(
      `customresourcedefinition.apiextensions.k8s.io/${GADGET_CRD_NAME} serverside-applied\n`,
    );
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    const crds = kc.makeApiClient(ApiextensionsV1Api);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const crd = await crds.readCustomResourceDefinition({ name: GADGET_CRD_NAME });
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error('the CRD was not Established within 10 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const at = { group: GADGET_GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name: 'g1' };
    const read = async () => (await custom.getNamespacedCustomObject(at)) as KubernetesObject & { spec?: unknown; status?: unknown };
    const gv = `${GADGET_GROUP}/v1`;

    const aSpec = {
      replicas: 1,
      ports: [{ name: 'http', port: 80 }],
      tags: ['x'],
      args: ['one', 'two'],
      labels: { team: 'a' },
      selector: { app: 'web' },
    };
    expect(await applyOK(gadget('g1', aSpec), ['--server-side', '--field-manager=a'])).toBe(
      `gadget.${GADGET_GROUP}/g1 serverside-applied\n`,
    );
    const bSpec = { ports: [{ name: 'metrics', port: 9090 }], tags: ['y'], labels: { tier: 'b' } };
    await applyOK(gadget('g1', bSpec), ['--server-side', '--field-manager=b']);
    let g = await read();
    // Map-list items and set members of both managers kept (live order, then the new ones); granular map merged.
    expect(g.spec).toEqual({
      replicas: 1,
      ports: [
        { name: 'http', port: 80 },
        { name: 'metrics', port: 9090 },
      ],
      tags: ['x', 'y'],
      args: ['one', 'two'],
      labels: { team: 'a', tier: 'b' },
      selector: { app: 'web' },
    });
    const port = (name: string, fields: string[]) => ({
      [`k:{"name":"${name}"}`]: { '.': {}, ...Object.fromEntries(fields.map((f) => [`f:${f}`, {}])) },
    });
    expect(managed(g)).toEqual([
      applied('a', gv, {
        'f:spec': {
          'f:args': {},
          'f:labels': { 'f:team': {} },
          'f:ports': port('http', ['name', 'port']),
          'f:replicas': {},
          'f:selector': {},
          'f:tags': { 'v:"x"': {} },
        },
      }),
      applied('b', gv, {
        'f:spec': { 'f:labels': { 'f:tier': {} }, 'f:ports': port('metrics', ['name', 'port']), 'f:tags': { 'v:"y"': {} } },
      }),
    ]);

    // b changes an atomic list, a map-list item's field and an atomic struct a owns: three conflicts, one message, in
    // SMD's order (a node's own members, then its children's).
    const bTakes = { ...bSpec, args: ['three'], ports: [{ name: 'http', port: 81 }, ...bSpec.ports], selector: { app: 'api' } };
    const conflict = await apply(gadget('g1', bTakes), ['--server-side', '--field-manager=b']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toBe(
      `error: Apply failed with 3 conflicts: conflicts with "a":\n- .spec.args\n- .spec.selector\n- .spec.ports[name="http"].port\n${ADVICE}`,
    );

    await applyOK(gadget('g1', bTakes), ['--server-side', '--field-manager=b', '--force-conflicts']);
    // a stops applying tag x (only a owned it: removed) and the port it lost (b owns it now: kept).
    await applyOK(gadget('g1', { replicas: 1, ports: [{ name: 'http' }], labels: { team: 'a' } }), ['--server-side', '--field-manager=a']);
    g = await read();
    expect(g.spec).toEqual({
      replicas: 1,
      ports: [
        { name: 'http', port: 81 },
        { name: 'metrics', port: 9090 },
      ],
      tags: ['y'],
      args: ['three'],
      labels: { team: 'a', tier: 'b' },
      selector: { app: 'api' },
    });
    expect(managed(g)).toEqual([
      applied('a', gv, { 'f:spec': { 'f:labels': { 'f:team': {} }, 'f:ports': port('http', ['name']), 'f:replicas': {} } }),
      applied('b', gv, {
        'f:spec': {
          'f:args': {},
          'f:labels': { 'f:tier': {} },
          'f:ports': { ...port('http', ['name', 'port']), ...port('metrics', ['name', 'port']) },
          'f:selector': {},
          'f:tags': { 'v:"y"': {} },
        },
      }),
    ]);

    // A controller applies status on the status subresource; the spec it sends is ignored there (kube's reset fields).
    const statusApply = (manager: string, ready: string) =>
      custom.patchNamespacedCustomObjectStatus(
        {
          ...at,
          fieldManager: manager,
          body: {
            apiVersion: gv,
            kind: 'Gadget',
            metadata: { name: 'g1' },
            spec: { replicas: 9 },
            status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: ready }] },
          },
        },
        SSA,
      );
    await statusApply('ctrl', 'True');
    g = await read();
    expect(g.status).toEqual({ observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] });
    expect((g.spec as { replicas: number }).replicas).toBe(1);
    expect(managed(g).find((e) => e.manager === 'ctrl')).toEqual(
      applied(
        'ctrl',
        gv,
        { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:observedGeneration': {} } },
        'status',
      ),
    );
    // Another controller's different value conflicts with ctrl, named with its subresource (the equal one is shared).
    const status = await refused(statusApply('other', 'False'));
    expect(status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "ctrl" with subresource "status": .status.conditions[type="Ready"].status',
    });
    // The spec appliers never conflict over status: a re-applies its spec unchanged.
    await applyOK(gadget('g1', { replicas: 1, ports: [{ name: 'http' }], labels: { team: 'a' } }), ['--server-side', '--field-manager=a']);

    // kubectl scale writes .spec.replicas through the scale subresource (an Update): a's next apply of another value
    // conflicts with that manager, named with its subresource and the custom resource's version.
    expect(succeeded(['scale'], await kubectl(['scale', `gadget.${GADGET_GROUP}/g1`, '--replicas=3']))).toBe(
      `gadget.${GADGET_GROUP}/g1 scaled\n`,
    );
    expect(((await read()).spec as { replicas: number }).replicas).toBe(3);
    const scaled = await apply(gadget('g1', { replicas: 1, ports: [{ name: 'http' }], labels: { team: 'a' } }), [
      '--server-side',
      '--field-manager=a',
    ]);
    expect(scaled.code).toBe(1);
    expect(scaled.stderr).toBe(
      `error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using ${gv}: .spec.replicas\n${ADVICE}`,
    );
  });
});

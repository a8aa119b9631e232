import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import {
  type ApiException,
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  loadYaml,
  PatchStrategy,
  setHeaderOptions,
  type V1CustomResourceDefinition,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCA } from '../../../packages/authn/src/test-support/test-ca.ts';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { BACKENDS, startBackend, type TestBackend } from './test-support/backends.ts';
import { consistentReadFallbacks } from './test-support/consistent-read-fallbacks.ts';
import { kubectlArgs, kubectlEnv, runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';
import { startProcess } from './test-support/test-process.ts';

/**
 * CustomResourceDefinitions end to end: the real kubectl (1.27 and 1.33 on memory, 1.32 on etcd and Redis) against
 * `npm start`'s server chain, APIExtensions first. A CRD applied with `kubectl apply -f` is served within a second;
 * explain shows its schema; custom resources are created, listed with their printer columns, defaulted, validated
 * with kube's messages, scaled, status-patched and field-selected; a second version is served; deleting the CRD
 * removes every instance and then the API.
 */

const binaries = kubectlBinaries(['kubectl.1.27', 'kubectl.1.33', 'kubectl']);
const T = 60_000;
const GROUP = 'stable.example.com';
const CRD_NAME = `crontabs.${GROUP}`;

/** Collapses runs of blanks, so table assertions don't depend on column widths. */
const squash = (s: string): string => s.replace(/[ \t]+/g, ' ');

/** kube's CronTab example, with one of each schema feature the issue names. `v2` adds a second served version (None). */
function crontabCRD(options: { v2?: boolean } = {}): string {
  const version = (name: string, storage: boolean) => `
  - name: ${name}
    served: true
    storage: ${storage}
    schema:
      openAPIV3Schema:
        type: object
        description: A CronTab runs an image on a schedule.
        properties:
          spec:
            type: object
            description: What to run, and when.
            required: [cronSpec]
            properties:
              cronSpec:
                type: string
                description: The schedule, in cron format.
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
              image:
                type: string
                description: The container image to run.
                default: busybox:1.36
              replicas:
                type: integer
                description: How many copies run at once.
                minimum: 0
                default: 1
              policy:
                type: string
                description: What to do when a run is still going at the next one.
                enum: [Allow, Forbid, Replace]
                default: Allow
              timeout:
                description: Seconds, or a duration.
                x-kubernetes-int-or-string: true
              ports:
                type: array
                description: Named ports.
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              labelSelector: {type: string}
              lastScheduleTime: {type: string, format: date-time}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Image, type: string, priority: 1, jsonPath: .spec.image}
    - {name: Last-Schedule, type: date, jsonPath: .status.lastScheduleTime}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    selectableFields:
    - jsonPath: .spec.policy`;
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${CRD_NAME}
spec:
  group: ${GROUP}
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:${version('v1', true)}${options.v2 ? version('v2', false) : ''}
`;
}

function crontab(name: string, spec: Record<string, unknown>, apiVersion = `${GROUP}/v1`): string {
  return `${JSON.stringify({ apiVersion, kind: 'CronTab', metadata: { name }, spec }, null, 2)}\n`;
}

interface CronTab extends KubernetesObject {
  spec?: { cronSpec?: string; image?: string; replicas?: number; policy?: string };
}

/** A GET as the control plane's admin (its token), verifying the server with the kubeconfig's CA. */
async function adminGet(cp: ControlPlane, path: string): Promise<{ status: number; body: string }> {
  const kubeconfig = await readFile(cp.kubeconfigPath, 'utf8');
  const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1] ?? '', 'base64');
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, cp.url), { ca, headers: { authorization: `Bearer ${cp.token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls `probe` until it returns something; fails after 10 s. */
async function waitFor<V>(what: string, probe: () => Promise<V | undefined>): Promise<V> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(BACKENDS)('CRDs with kubectl on %s', (backendName) => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startBackend(backendName);
  }, T);
  afterAll(async () => {
    await backend?.stop();
  }, T);

  describe('@kubernetes/client-node', () => {
    let cp: ControlPlane;
    let tmp: string;
    let kc: KubeConfig;
    beforeAll(async () => {
      ({ cp, tmp } = await startTempControlPlane('kapi-client-node-crd-', { storage: backend.storage() }));
      kc = new KubeConfig();
      kc.loadFromFile(cp.kubeconfigPath);
    }, T);
    afterAll(() => stopTempControlPlane(cp, tmp), T);

    it('creates a CRD, waits for Established, then creates, gets, lists, patches, watches and deletes its objects', {
      timeout: T,
    }, async () => {
      const crds = kc.makeApiClient(ApiextensionsV1Api);
      const custom = kc.makeApiClient(CustomObjectsApi);
      const created = await crds.createCustomResourceDefinition({ body: loadYaml<V1CustomResourceDefinition>(crontabCRD()) });
      expect(created.metadata?.name).toBe(CRD_NAME);
      const established = await waitFor('Established', async () => {
        const crd = await crds.readCustomResourceDefinition({ name: CRD_NAME });
        return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? crd : undefined;
      });
      expect(established.status?.acceptedNames).toMatchObject({ kind: 'CronTab', plural: 'crontabs' });

      // Established means served: the first request after it succeeds.
      const at = { group: GROUP, version: 'v1', namespace: 'default', plural: 'crontabs' };
      const list = (await custom.listNamespacedCustomObject(at)) as { items: unknown[]; metadata: { resourceVersion: string } };
      expect(list.items).toEqual([]);
      const events: { type: string; name?: string; image?: string }[] = [];
      let ended: unknown = 'open';
      const watch = await new Watch(kc).watch(
        '/apis/stable.example.com/v1/namespaces/default/crontabs',
        { resourceVersion: list.metadata.resourceVersion },
        (type, obj: CronTab) => events.push({ type, name: obj.metadata?.name, image: obj.spec?.image }),
        (err) => {
          ended = err;
        },
      );
      try {
        const c1 = (await custom.createNamespacedCustomObject({
          ...at,
          body: { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'c1' }, spec: { cronSpec: '* * * * *' } },
        })) as CronTab;
        expect(c1.spec).toEqual({ cronSpec: '* * * * *', image: 'busybox:1.36', policy: 'Allow', replicas: 1 });
        expect(((await custom.getNamespacedCustomObject({ ...at, name: 'c1' })) as CronTab).metadata?.uid).toBe(c1.metadata?.uid);
        const patched = (await custom.patchNamespacedCustomObject(
          { ...at, name: 'c1', body: { spec: { image: 'nginx' } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )) as CronTab;
        expect(patched.spec?.image).toBe('nginx');
        const items = ((await custom.listNamespacedCustomObject(at)) as { items: CronTab[] }).items;
        expect(items.map((o) => [o.metadata?.name, o.spec?.image])).toEqual([['c1', 'nginx']]);
        const invalid = await custom
          .createNamespacedCustomObject({
            ...at,
            body: { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'bad' }, spec: { cronSpec: '* * * * *', replicas: -1 } },
          })
          .then(
            () => undefined,
            (e: ApiException<string>) => e,
          );
        expect(invalid?.code).toBe(422);
        // The schema's minimum, then the scale subresource's own check of the replicas it reads (kube's ValidateScaleSpec).
        expect(JSON.parse(invalid?.body ?? '{}').message).toBe(
          'CronTab.stable.example.com "bad" is invalid: [spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, .spec.replicas: Invalid value: -1: should be a non-negative integer]',
        );
        await custom.deleteNamespacedCustomObject({ ...at, name: 'c1' });
        await waitFor('three watch events', async () => (events.length >= 3 ? true : undefined));
        expect(events).toEqual([
          { type: 'ADDED', name: 'c1', image: 'busybox:1.36' },
          { type: 'MODIFIED', name: 'c1', image: 'nginx' },
          { type: 'DELETED', name: 'c1', image: 'nginx' },
        ]);
        expect(ended).toBe('open');
      } finally {
        watch.abort();
      }
      await crds.deleteCustomResourceDefinition({ name: CRD_NAME });
      await waitFor('the API gone', () =>
        custom.listNamespacedCustomObject(at).then(
          () => undefined,
          (e: ApiException<string>) => (e.code === 404 ? true : undefined),
        ),
      );
    });
  });

  // 1.27 and 1.33 on memory; the storage-dependent paths with the current kubectl on etcd and Redis.
  const versions = backendName === 'memory' ? binaries.slice(0, 2) : binaries.slice(2);
  describe.each(versions.map((bin) => [basename(bin), bin] as const))('%s', (_name, bin) => {
    let cp: ControlPlane;
    let tmp: string;
    let file = 0;

    beforeAll(async () => {
      ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-crd-', { storage: backend.storage() }));
    }, T);
    afterAll(() => stopTempControlPlane(cp, tmp), T);

    const run = (...args: string[]) => runKubectl(bin, tmp, cp.kubeconfigPath, args);
    const k = async (...args: string[]) => succeeded(args, await run(...args));
    async function manifest(text: string): Promise<string> {
      const path = join(tmp, `manifest-${file++}.yaml`);
      await writeFile(path, text);
      return path;
    }
    /**
     * Applies the CRD; returns the ms from apply's return until the server lists crontabs (asked over HTTPS one
     * request after another, no pause), then kubectl's first `get crontabs` must succeed (its discovery cache misses
     * and it asks again). The server is what is timed: one kubectl process alone takes 0.3–1 s on a loaded 2-CPU machine.
     */
    async function applyCRDAndGet(text: string): Promise<number> {
      const applied = await k('apply', '-f', await manifest(text));
      expect(applied).toMatch(new RegExp(`^customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} (created|configured)\\n$`));
      const start = performance.now();
      const path = `/apis/${GROUP}/v1/namespaces/default/crontabs`;
      while ((await adminGet(cp, path)).status !== 200 && performance.now() - start < 5000);
      const elapsed = performance.now() - start;
      succeeded(['get', 'crontabs'], await run('get', 'crontabs'));
      return elapsed;
    }

    it('kubectl apply -f crd.yaml, then kubectl get crontabs within a second', { timeout: T }, async () => {
      expect(await applyCRDAndGet(crontabCRD())).toBeLessThan(1000);
      const crd = JSON.parse(await k('get', 'crd', CRD_NAME, '-o', 'json'));
      expect(crd.status.acceptedNames).toMatchObject({ kind: 'CronTab', plural: 'crontabs', shortNames: ['ct'], categories: ['all'] });
      expect(crd.status.storedVersions).toEqual(['v1']);
      const conditions = Object.fromEntries(crd.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]));
      expect(conditions).toMatchObject({ NamesAccepted: 'True', Established: 'True' });
      expect(squash(await k('api-resources', '--api-group', GROUP)).split('\n')).toContain(`crontabs ct ${GROUP}/v1 true CronTab`);
    });

    it('kubectl explain shows the schema', { timeout: T }, async () => {
      const [spec, recursive, v2] = await Promise.all([
        k('explain', 'crontab.spec'),
        k('explain', 'crontabs', '--recursive'),
        // From /openapi/v2 instead of /openapi/v3.
        k('explain', 'crontab.spec', '--output=plaintext-openapiv2'),
      ]);
      expect(v2).toContain('KIND:     CronTab');
      expect(v2).toContain('What to run, and when.');
      expect(v2).toMatch(/cronSpec\s+<string> -required-\n\s+The schedule, in cron format\./);
      expect(spec).toContain('KIND:');
      expect(spec).toContain('CronTab');
      expect(spec).toContain('What to run, and when.');
      expect(spec).toMatch(/cronSpec\s+<string> -required-/);
      expect(spec).toContain('The schedule, in cron format.');
      expect(spec).toMatch(/policy\s+<string>/);
      expect(spec).toContain('The container image to run.');
      for (const field of ['spec', 'cronSpec', 'ports', 'port', 'status', 'lastScheduleTime'])
        expect(recursive).toMatch(new RegExp(`\\b${field}\\b`));
      expect(recursive).toContain('A CronTab runs an image on a schedule.');
    });

    it('creates custom resources, prints their columns, applies defaults and validates with kube messages', { timeout: T }, async () => {
      expect(await k('apply', '-f', await manifest(crontab('c1', { cronSpec: '*/5 * * * *', timeout: 30 })))).toBe(
        `crontab.${GROUP}/c1 created\n`,
      );
      expect(
        await k('create', '-f', await manifest(crontab('c2', { cronSpec: '0 3 * * *', image: 'nginx', policy: 'Forbid', timeout: '1m' }))),
      ).toBe(`crontab.${GROUP}/c2 created\n`);

      const [tableText, wideText, all, yaml] = await Promise.all([
        k('get', 'crontabs'),
        k('get', 'ct', '-o', 'wide'),
        k('get', 'all'),
        k('get', 'crontab', 'c1', '-o', 'yaml'),
      ]);
      const table = squash(tableText).trim().split('\n');
      expect(table[0]).toBe('NAME SPEC REPLICAS LAST-SCHEDULE AGE');
      // Last-Schedule (.status.lastScheduleTime) is unset: a null cell, which kubectl prints empty.
      expect(table[1]).toMatch(/^c1 \*\/5 \* \* \* \* 1 \d+s$/);
      expect(table[2]).toMatch(/^c2 0 3 \* \* \* 1 \d+s$/);
      const wide = squash(wideText).trim().split('\n');
      expect(wide[0]).toBe('NAME SPEC REPLICAS IMAGE LAST-SCHEDULE AGE');
      expect(wide[1]).toMatch(/^c1 \*\/5 \* \* \* \* 1 busybox:1\.36 \d+s$/);
      expect(wide[2]).toMatch(/^c2 0 3 \* \* \* 1 nginx \d+s$/);
      expect(all).toContain(`crontab.${GROUP}/c1`);
      expect(all).toContain(`crontab.${GROUP}/c2`);

      expect(yaml).toContain(`apiVersion: ${GROUP}/v1`);
      expect(yaml).toContain('kind: CronTab');
      expect(yaml).toContain('  image: busybox:1.36');
      expect(yaml).toContain('  policy: Allow');
      expect(yaml).toContain('  replicas: 1');
      expect(yaml).toContain('  timeout: 30');

      // Refused, each with kube's words (independent: run at once).
      const unknownPath = await manifest(crontab('pruned', { cronSpec: '* * * * *', extra: 'x' }));
      const [bad, pattern, duplicate, intOrString, strict] = await Promise.all([
        manifest(crontab('bad', { cronSpec: '*/5 * * * *', policy: 'Sometimes' })).then((f) => run('create', '-f', f)),
        manifest(crontab('bad', { cronSpec: 'every minute' })).then((f) => run('apply', '-f', f)),
        manifest(crontab('bad', { cronSpec: '* * * * *', ports: [{ name: 'http' }, { name: 'http', port: 8080 }] })).then((f) =>
          run('create', '-f', f),
        ),
        manifest(crontab('bad', { cronSpec: '* * * * *', timeout: true })).then((f) => run('create', '-f', f)),
        // Unknown fields: refused under kubectl's default --validate=strict (pruned with --validate=false, below).
        run('create', '-f', unknownPath),
      ]);
      expect([bad.code, bad.stderr]).toEqual([
        1,
        'The CronTab "bad" is invalid: spec.policy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"\n',
      ]);
      expect(pattern.code).toBe(1);
      expect(pattern.stderr).toContain(
        'The CronTab "bad" is invalid: spec.cronSpec: Invalid value: "every minute": spec.cronSpec in body should match',
      );
      expect(duplicate.code).toBe(1);
      // kube prints the key with Go's %#v, map[string]interface {}{"name":"http"}; kapi prints it as JSON (reported).
      expect(duplicate.stderr).toMatch(/^The CronTab "bad" is invalid: spec\.ports\[1\]: Duplicate value: .*"name":"http"\}\n$/);
      expect([intOrString.code, intOrString.stderr]).toEqual([
        1,
        'The CronTab "bad" is invalid: spec.timeout: Invalid value: "boolean": spec.timeout in body must be of type integer,string: "boolean"\n',
      ]);
      expect([strict.code, strict.stderr]).toEqual([
        1,
        `Error from server (BadRequest): error when creating "${unknownPath}": CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.extra"\n`,
      ]);
      expect((await run('get', 'crontab', 'bad')).code).toBe(1);
      expect(await k('create', '--validate=false', '-f', unknownPath)).toBe(`crontab.${GROUP}/pruned created\n`);
      expect(JSON.parse(await k('get', 'crontab', 'pruned', '-o', 'jsonpath={.spec}'))).toEqual({
        cronSpec: '* * * * *',
        image: 'busybox:1.36',
        policy: 'Allow',
        replicas: 1,
      });
      expect(await k('delete', 'crontab', 'pruned')).toBe(`crontab.${GROUP} "pruned" deleted\n`);
    });

    it('scales, patches status, selects by a selectable field, and refuses a strategic merge patch', { timeout: T }, async () => {
      expect(await k('scale', 'crontab/c1', '--replicas=3')).toBe(`crontab.${GROUP}/c1 scaled\n`);
      expect(await k('get', 'crontab', 'c1', '-o', 'jsonpath={.spec.replicas}')).toBe('3');
      const scale = JSON.parse(await k('get', 'crontab', 'c1', '--subresource=scale', '-o', 'json'));
      expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'c1' }, spec: { replicas: 3 } });

      expect(
        await k(
          'patch',
          'crontab',
          'c1',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"replicas":2,"labelSelector":"app=c1","lastScheduleTime":"2024-01-02T03:04:05Z"},"spec":{"image":"ignored"}}',
        ),
      ).toBe(`crontab.${GROUP}/c1 patched\n`);
      const patched = JSON.parse(await k('get', 'crontab', 'c1', '-o', 'json'));
      expect(patched.status).toEqual({ replicas: 2, labelSelector: 'app=c1', lastScheduleTime: '2024-01-02T03:04:05Z' });
      // The status subresource ignores spec.
      expect(patched.spec.image).toBe('busybox:1.36');
      expect(JSON.parse(await k('get', 'crontab', 'c1', '--subresource=scale', '-o', 'json')).status).toEqual({
        replicas: 2,
        selector: 'app=c1',
      });
      // The date column shows the age of lastScheduleTime.
      expect(squash(await k('get', 'crontab', 'c1'))).toMatch(/\nc1 \*\/5 \* \* \* \* 3 \d+y\d+d \d+s\n$/);

      expect(await k('get', 'crontabs', '--field-selector', 'spec.policy=Forbid', '-o', 'name')).toBe(`crontab.${GROUP}/c2\n`);
      expect(await k('get', 'crontabs', '--field-selector', 'spec.policy!=Forbid', '-o', 'name')).toBe(`crontab.${GROUP}/c1\n`);
      const unknownField = await run('get', 'crontabs', '--field-selector', 'spec.image=nginx');
      expect(unknownField.code).toBe(1);
      expect(unknownField.stderr).toContain(
        '"spec.image" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.policy"',
      );

      const strategic = await run('patch', 'crontab', 'c2', '--type=strategic', '-p', '{"spec":{"image":"x"}}');
      expect(strategic.code).toBe(1);
      expect(strategic.stderr).toBe(
        // kubectl words the server's 415 (UnsupportedMediaType) so.
        `error: application/strategic-merge-patch+json is not supported by ${GROUP}/v1, Kind=CronTab: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n`,
      );
      expect(await k('patch', 'crontab', 'c2', '--type=json', '-p', '[{"op":"replace","path":"/spec/image","value":"nginx:2"}]')).toBe(
        `crontab.${GROUP}/c2 patched\n`,
      );

      // An edit: get, change, replace.
      const c2 = JSON.parse(await k('get', 'crontab', 'c2', '-o', 'json'));
      c2.spec.policy = 'Replace';
      expect(await k('replace', '-f', await manifest(JSON.stringify(c2)))).toBe(`crontab.${GROUP}/c2 replaced\n`);
      expect(await k('get', 'crontabs', '--field-selector', 'spec.policy=Replace', '-o', 'name')).toBe(`crontab.${GROUP}/c2\n`);
    });

    it('serves a second version (conversion None) once the CRD adds it', { timeout: T }, async () => {
      await applyCRDAndGet(crontabCRD({ v2: true }));
      let v2 = await run('get', `crontabs.v2.${GROUP}`, '-o', 'json');
      const start = Date.now();
      while (v2.code !== 0 && Date.now() - start < 5000) v2 = await run('get', `crontabs.v2.${GROUP}`, '-o', 'json');
      const list = JSON.parse(succeeded(['get', `crontabs.v2.${GROUP}`], v2));
      expect(list.items.map((o: { apiVersion: string; metadata: { name: string } }) => [o.apiVersion, o.metadata.name])).toEqual([
        [`${GROUP}/v2`, 'c1'],
        [`${GROUP}/v2`, 'c2'],
      ]);
      expect(await k('get', `crontabs.v1.${GROUP}`, 'c1', '-o', 'jsonpath={.apiVersion}')).toBe(`${GROUP}/v1`);
      expect(await k('create', '-f', await manifest(crontab('c3', { cronSpec: '1 1 * * *' }, `${GROUP}/v2`)))).toBe(
        `crontab.${GROUP}/c3 created\n`,
      );
      expect(await k('get', `crontabs.v1.${GROUP}`, 'c3', '-o', 'jsonpath={.apiVersion} {.spec.image}')).toBe(`${GROUP}/v1 busybox:1.36`);
    });

    it('kubectl delete crd removes every instance and then the API; applying it again serves an empty list', { timeout: T }, async () => {
      expect(JSON.parse(await k('get', 'crontabs', '-o', 'json')).items).toHaveLength(3);
      expect(await k('delete', 'crd', CRD_NAME)).toBe(`customresourcedefinition.apiextensions.k8s.io "${CRD_NAME}" deleted\n`);
      // kubectl delete waits until the CRD is gone (its instances first); the API goes a moment later, as in kube.
      const start = Date.now();
      let discovery = await run('get', '--raw', `/apis/${GROUP}`);
      while (discovery.code === 0 && Date.now() - start < 5000) discovery = await run('get', '--raw', `/apis/${GROUP}`);
      expect(discovery.stderr).toBe('Error from server (NotFound): the server could not find the requested resource\n');
      // kubectl trusts its discovery cache (6 h): with the stale one it asks for a list the server no longer serves.
      const stale = await run('get', 'crontabs');
      expect([stale.code, stale.stderr]).toEqual([
        1,
        `Error from server (NotFound): Unable to list "${GROUP}/v2, Resource=crontabs": the server could not find the requested resource\n`,
      ]);
      await rm(join(tmp, 'cache'), { recursive: true, force: true });
      const gone = await run('get', 'crontabs');
      expect([gone.code, gone.stderr]).toEqual([1, 'error: the server doesn\'t have a resource type "crontabs"\n']);
      expect(await k('api-resources')).not.toContain('CronTab');
      const crd = await run('get', 'crd', CRD_NAME);
      expect(crd.stderr).toBe(`Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "${CRD_NAME}" not found\n`);

      expect(await applyCRDAndGet(crontabCRD())).toBeLessThan(1000);
      const again = await run('get', 'crontabs');
      expect([again.stdout, again.stderr]).toEqual(['', 'No resources found in default namespace.\n']);
    });

    it('no consistent read waited out the freshness timeout', () => {
      expect(consistentReadFallbacks(cp.server)).toEqual({});
    });
  });
});

/**
 * Webhook conversion through `npm start`'s chain: a real HTTPS conversion webhook started here (its serving
 * certificate from a CA given to the CRD as caBundle) converts Backend between v1 (storage: spec.host, spec.port) and
 * v2 (spec.address "host:port"); kubectl creates, gets, lists, watches and patches in either version.
 */
describe('a CRD with Webhook conversion, with kubectl on memory', () => {
  const CONV_GROUP = 'conv.example.com';
  const bin = binaries[2] as string;
  const reviews: { desiredAPIVersion: string; objects: number }[] = [];
  let webhook: Server;
  let caBundle: string;
  let webhookURL: string;
  let cp: ControlPlane;
  let tmp: string;
  let file = 0;

  /** The webhook's conversion of one object. */
  function convert(o: { apiVersion: string; spec?: Record<string, unknown> }, to: string) {
    const spec = { ...o.spec };
    if (to === `${CONV_GROUP}/v2` && 'host' in spec) {
      spec.address = `${spec.host}:${spec.port}`;
      delete spec.host;
      delete spec.port;
    } else if (to === `${CONV_GROUP}/v1` && 'address' in spec) {
      const [host, port] = String(spec.address).split(':');
      spec.host = host;
      spec.port = Number(port);
      delete spec.address;
    }
    return { ...o, apiVersion: to, spec };
  }

  beforeAll(async () => {
    const ca = await makeTestCA('kubectl-conversion-ca');
    const serving = await ca.issue('CN=backend-converter', 'server');
    caBundle = Buffer.from(ca.pem).toString('base64');
    webhook = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString());
        const { uid, desiredAPIVersion, objects } = review.request;
        reviews.push({ desiredAPIVersion, objects: objects.length });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: review.apiVersion,
            kind: 'ConversionReview',
            response: { uid, result: { status: 'Success' }, convertedObjects: objects.map((o: never) => convert(o, desiredAPIVersion)) },
          }),
        );
      });
    });
    await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
    webhookURL = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/convert`;
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-crd-webhook-'));
  }, T);
  afterAll(async () => {
    try {
      await stopTempControlPlane(cp, tmp);
    } finally {
      webhook?.closeAllConnections();
      await new Promise((r) => webhook?.close(r));
    }
  }, T);

  const run = (...args: string[]) => runKubectl(bin, tmp, cp.kubeconfigPath, args);
  const k = async (...args: string[]) => succeeded(args, await run(...args));
  async function manifest(text: string): Promise<string> {
    const path = join(tmp, `conversion-${file++}.yaml`);
    await writeFile(path, text);
    return path;
  }
  const backendCRD = () => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backends.${CONV_GROUP}
spec:
  group: ${CONV_GROUP}
  scope: Namespaced
  names: {plural: backends, singular: backend, kind: Backend}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        url: ${webhookURL}
        caBundle: ${caBundle}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [host]
            properties:
              host: {type: string}
              port: {type: integer, default: 80}
    additionalPrinterColumns:
    - {name: Host, type: string, jsonPath: .spec.host}
    - {name: Port, type: integer, jsonPath: .spec.port}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [address]
            properties:
              address: {type: string}
    additionalPrinterColumns:
    - {name: Address, type: string, jsonPath: .spec.address}
`;
  const v1 = `backends.v1.${CONV_GROUP}`;
  const v2 = `backends.v2.${CONV_GROUP}`;

  it('creates in v1, reads in v2 and v1, lists, watches and patches in either version', { timeout: T }, async () => {
    expect(await k('apply', '-f', await manifest(backendCRD()))).toBe(
      `customresourcedefinition.apiextensions.k8s.io/backends.${CONV_GROUP} created\n`,
    );
    const start = performance.now();
    while ((await adminGet(cp, `/apis/${CONV_GROUP}/v2/namespaces/default/backends`)).status !== 200 && performance.now() - start < 5000);
    expect(performance.now() - start).toBeLessThan(1000);
    expect(await run('get', v2)).toEqual({ code: 0, stdout: '', stderr: 'No resources found in default namespace.\n' });

    const b1 = JSON.stringify({ apiVersion: `${CONV_GROUP}/v1`, kind: 'Backend', metadata: { name: 'b1' }, spec: { host: 'db' } });
    expect(await k('create', '-f', await manifest(b1))).toBe(`backend.${CONV_GROUP}/b1 created\n`);
    // The v1 default (port 80) applies before the webhook converts to v2.
    expect(await k('get', v2, 'b1', '-o', 'jsonpath={.apiVersion} {.spec.address}')).toBe(`${CONV_GROUP}/v2 db:80`);
    expect(await k('get', v1, 'b1', '-o', 'jsonpath={.apiVersion} {.spec.host} {.spec.port}')).toBe(`${CONV_GROUP}/v1 db 80`);
    const b2 = JSON.stringify({
      apiVersion: `${CONV_GROUP}/v2`,
      kind: 'Backend',
      metadata: { name: 'b2' },
      spec: { address: 'cache:6379' },
    });
    expect(await k('create', '-f', await manifest(b2))).toBe(`backend.${CONV_GROUP}/b2 created\n`);
    expect(await k('get', v1, 'b2', '-o', 'jsonpath={.spec.host} {.spec.port}')).toBe('cache 6379');
    expect(
      squash(await k('get', v2))
        .trim()
        .split('\n'),
    ).toEqual(['NAME ADDRESS', 'b1 db:80', 'b2 cache:6379']);
    expect(
      squash(await k('get', v1))
        .trim()
        .split('\n'),
    ).toEqual(['NAME HOST PORT', 'b1 db 80', 'b2 cache 6379']);
    expect(reviews.some((r) => r.desiredAPIVersion === `${CONV_GROUP}/v2` && r.objects === 2)).toBe(true);
    expect(reviews.some((r) => r.desiredAPIVersion === `${CONV_GROUP}/v1`)).toBe(true);

    // A watch in v2 sees a change made in v1.
    const watch = startProcess(bin, kubectlArgs(tmp, cp.kubeconfigPath, ['get', v2, '-w', '--request-timeout=30s']), {
      env: kubectlEnv(tmp),
    });
    try {
      await watch.waitForStdout(/\nb2 +cache:6379\n/, { timeoutMs: 10_000 });
      expect(await k('patch', v1, 'b1', '--type=merge', '-p', '{"spec":{"port":5432}}')).toBe(`backend.${CONV_GROUP}/b1 patched\n`);
      await watch.waitForStdout(/\nb1 +db:5432\n/, { timeoutMs: 10_000 });
    } finally {
      await watch.stop();
    }

    // A patch in v2 is converted to v1 for storage.
    expect(await k('patch', v2, 'b2', '--type=merge', '-p', '{"spec":{"address":"cache:6380"}}')).toBe(
      `backend.${CONV_GROUP}/b2 patched\n`,
    );
    expect(await k('get', v1, 'b2', '-o', 'jsonpath={.spec.host} {.spec.port}')).toBe('cache 6380');
    expect(await k('patch', v2, 'b1', '--type=json', '-p', '[{"op":"replace","path":"/spec/address","value":"db2:5433"}]')).toBe(
      `backend.${CONV_GROUP}/b1 patched\n`,
    );
    expect(await k('get', v1, 'b1', '-o', 'jsonpath={.spec.host} {.spec.port}')).toBe('db2 5433');
    expect(await k('delete', v2, 'b1')).toBe(`backend.${CONV_GROUP} "b1" deleted\n`);
    expect(await k('get', v1, '-o', 'name')).toBe(`backend.${CONV_GROUP}/b2\n`);
  });
});

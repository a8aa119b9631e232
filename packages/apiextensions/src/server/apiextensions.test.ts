import { ConfigMap, defineResource, Namespace } from '@kapi/registry';
import { MemoryStorage, type Storage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Json, send, startChain, type TestChain, until } from './test-support/chain.ts';

/** The APIExtensions server first in kube's chain, delegating to a control plane serving Namespace and ConfigMap. */

const started: TestChain[] = [];
afterEach(async () => {
  for (const c of started.splice(0).reverse()) await c.stop();
});

async function startTestChain(storage: Storage = new MemoryStorage(), closeStorage = true): Promise<TestChain> {
  const c = await startChain(storage, { resources: [Namespace, ConfigMap], closeStorage, apiextensions: { retryAfterMs: 50 } });
  started.push(c);
  return c;
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'stable.example.com';

function crontabCRD(extra: Json = {}): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
                    image: { type: 'string' },
                    replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, labelSelector: { type: 'string' } } },
              },
            },
          },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.labelSelector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
      ...extra,
    },
  };
}

const condition = (crd: Json, type: string): Json => crd.status?.conditions?.find((c: Json) => c.type === type);
const crontabs = (url: string, ns = 'default') => `${url}/apis/${GROUP}/v1/namespaces/${ns}/crontabs`;

async function established(url: string, name: string): Promise<Json> {
  return until(`${name} established`, async () => {
    const { body } = await send('GET', `${url}${CRDS}/${name}`);
    return condition(body, 'Established')?.status === 'True' ? body : undefined;
  });
}

describe('APIExtensions: a CRD is served at run time', () => {
  it('accepts the names, establishes the CRD, and serves its kind: create, defaults, validation, list, table, discovery', async () => {
    const { url } = await startTestChain();
    await send('POST', `${url}/api/v1/namespaces`, { metadata: { name: 'default' } });
    const created = await send('POST', `${url}${CRDS}`, crontabCRD());
    expect(created.status).toBe(201);
    expect(created.body.status.storedVersions).toEqual(['v1']);
    const started = Date.now();
    const crd = await established(url, `crontabs.${GROUP}`);
    expect(condition(crd, 'NamesAccepted')).toMatchObject({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    expect(condition(crd, 'Established')).toMatchObject({ status: 'True', reason: 'InitialNamesAccepted' });
    expect(crd.status.acceptedNames).toEqual({
      plural: 'crontabs',
      singular: 'crontab',
      kind: 'CronTab',
      listKind: 'CronTabList',
      shortNames: ['ct'],
      categories: ['all'],
    });
    const first = await until('the kind served', async () => {
      const r = await send('POST', crontabs(url), {
        apiVersion: `${GROUP}/v1`,
        kind: 'CronTab',
        metadata: { name: 'a' },
        spec: { cronSpec: '* * * * */5', image: 'x', junk: 1 },
      });
      return r.status === 404 ? undefined : r;
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(first.status).toBe(201);
    // Defaulted, pruned, status cleared (status subresource).
    expect(first.body.spec).toEqual({ cronSpec: '* * * * */5', image: 'x', replicas: 1 });
    expect(first.body.metadata.generation).toBe(1);

    const bad = await send('POST', crontabs(url), {
      apiVersion: `${GROUP}/v1`,
      kind: 'CronTab',
      metadata: { name: 'b' },
      spec: { cronSpec: 'nope', replicas: 11 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'CronTab.stable.example.com "b" is invalid: [spec.cronSpec: Invalid value: "nope": spec.cronSpec in body should match \'^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$\', spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10]',
    );

    const list = await send('GET', crontabs(url));
    expect(list.body.kind).toBe('CronTabList');
    expect(list.body.items.map((o: Json) => o.metadata.name)).toEqual(['a']);
    const table = await fetch(crontabs(url), { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }).then(
      (r) => r.json() as Promise<Json>,
    );
    expect(table.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Spec', 'Replicas', 'Age']);
    expect(table.rows[0].cells.slice(0, 3)).toEqual(['a', '* * * * */5', 1]);

    const discovery = await send('GET', `${url}/apis/${GROUP}/v1`);
    const resources = discovery.body.resources.map((r: Json) => [r.name, r.kind, r.shortNames, r.categories, r.verbs.length > 0]);
    expect(resources).toEqual(
      expect.arrayContaining([
        ['crontabs', 'CronTab', ['ct'], ['all'], true],
        ['crontabs/status', 'CronTab', undefined, undefined, true],
        ['crontabs/scale', 'Scale', undefined, undefined, true],
      ]),
    );
    // kube refuses strategic merge patch on custom resources.
    const smp = await send('PATCH', `${crontabs(url)}/a`, { spec: { image: 'y' } }, 'application/strategic-merge-patch+json');
    expect(smp.status).toBe(415);
    // Scale.
    const scale = await send('GET', `${crontabs(url)}/a/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 } });
  });

  it('a name conflict: NamesAccepted False with kube’s message, not served', async () => {
    const { url } = await startTestChain();
    await send('POST', `${url}${CRDS}`, crontabCRD());
    await established(url, `crontabs.${GROUP}`);
    const other = crontabCRD();
    other.metadata.name = `crontabsv2.${GROUP}`;
    other.spec.names = { plural: 'crontabsv2', singular: 'crontabv2', kind: 'CronTabV2', shortNames: ['ct'] };
    expect((await send('POST', `${url}${CRDS}`, other)).status).toBe(201);
    const conflicted = await until('NamesAccepted False', async () => {
      const { body } = await send('GET', `${url}${CRDS}/crontabsv2.${GROUP}`);
      return condition(body, 'NamesAccepted')?.status === 'False' ? body : undefined;
    });
    expect(condition(conflicted, 'NamesAccepted')).toMatchObject({ reason: 'ShortNamesConflict', message: '"ct" is already in use' });
    expect(condition(conflicted, 'Established')).toMatchObject({ status: 'False', reason: 'NotAccepted' });
    expect((await send('GET', `${url}/apis/${GROUP}/v1/crontabsv2`)).status).toBe(404);
  });

  it('a CRD for a kind another server of the chain serves is reported once, not retried, and the built-in kind keeps its path', async () => {
    const errors: string[] = [];
    const storage = new MemoryStorage();
    const Gadget = defineResource({
      group: GROUP,
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
      versions: [{ name: 'v1' }],
      schema: z.object({ spec: z.looseObject({ builtIn: z.boolean().default(true) }).optional() }),
    });
    const c = await startChain(storage, {
      resources: [Namespace, Gadget],
      apiextensions: { retryAfterMs: 20, onError: (_e, what) => errors.push(what) },
    });
    started.push(c);
    const url = c.url;
    await send('POST', `${url}/api/v1/namespaces`, { metadata: { name: 'default' } });
    const crd = crontabCRD();
    crd.metadata.name = `gadgets.${GROUP}`;
    crd.spec.names = { plural: 'gadgets', kind: 'Gadget' };
    expect((await send('POST', `${url}${CRDS}`, crd)).status).toBe(201);
    await established(url, `gadgets.${GROUP}`);
    await until('the failure reported', async () => (errors.length ? true : undefined));
    await new Promise((r) => setTimeout(r, 200));
    expect(errors).toEqual([`serve customresourcedefinition gadgets.${GROUP}`]);
    const created = await send('POST', `${url}/apis/${GROUP}/v1/namespaces/default/gadgets`, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: {},
    });
    expect(created.body.spec).toEqual({ builtIn: true });
  });

  it('deleting a CRD deletes its instances (customresourcecleanup), then the CRD and its API', async () => {
    const { url } = await startTestChain();
    await send('POST', `${url}/api/v1/namespaces`, { metadata: { name: 'default' } });
    await send('POST', `${url}${CRDS}`, crontabCRD());
    await established(url, `crontabs.${GROUP}`);
    await until('served', async () => ((await send('GET', crontabs(url))).status === 200 ? true : undefined));
    for (const name of ['a', 'b'])
      expect((await send('POST', crontabs(url), { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name } })).status).toBe(201);
    // One instance with a finalizer of its own keeps the CRD terminating until it goes.
    await send('PATCH', `${crontabs(url)}/b`, { metadata: { finalizers: ['example.com/hold'] } }, 'application/merge-patch+json');

    const deleted = await send('DELETE', `${url}${CRDS}/crontabs.${GROUP}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(condition(deleted.body, 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionPending' });

    const terminating = await until('instance b terminating', async () => {
      const r = await send('GET', `${crontabs(url)}/b`);
      return r.body?.metadata?.deletionTimestamp ? r : undefined;
    });
    expect(terminating.status).toBe(200);
    expect((await send('GET', `${crontabs(url)}/a`)).status).toBe(404);
    // Creates are refused while the CRD terminates.
    const create = await send('POST', crontabs(url), { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'c' } });
    expect(create.status).toBe(405);
    expect(create.body).toMatchObject({
      reason: 'MethodNotAllowed',
      message: 'create not allowed while custom resource definition is terminating',
    });
    const crd = await send('GET', `${url}${CRDS}/crontabs.${GROUP}`);
    expect(crd.status).toBe(200);

    await send('PATCH', `${crontabs(url)}/b`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await until('the CRD gone', async () => ((await send('GET', `${url}${CRDS}/crontabs.${GROUP}`)).status === 404 ? true : undefined));
    await until('the API gone', async () => ((await send('GET', crontabs(url))).status === 404 ? true : undefined));
    const groups = await send('GET', `${url}/apis`);
    expect(groups.body.groups.map((g: Json) => g.name)).not.toContain(GROUP);
  });

  it('serves the CRDs stored before a restart as soon as start() returns, with defaults added since applied on read', async () => {
    const storage = new MemoryStorage();
    const first = await startTestChain(storage, false);
    await send('POST', `${first.url}/api/v1/namespaces`, { metadata: { name: 'default' } });
    await send('POST', `${first.url}${CRDS}`, crontabCRD());
    await established(first.url, `crontabs.${GROUP}`);
    await until('served', async () => ((await send('GET', crontabs(first.url))).status === 200 ? true : undefined));
    await send('POST', crontabs(first.url), { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'a' }, spec: { image: 'x' } });
    // A default added to the schema later shows on the stored object, read through the watch cache.
    const crd = (await send('GET', `${first.url}${CRDS}/crontabs.${GROUP}`)).body;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.image.default = 'nginx';
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.cronSpec.default = '* * * * *';
    expect((await send('PUT', `${first.url}${CRDS}/crontabs.${GROUP}`, crd)).status).toBe(200);
    const read = await until('the new default applied on read', async () => {
      const r = await send('GET', `${crontabs(first.url)}/a`);
      return r.body?.spec?.cronSpec ? r : undefined;
    });
    expect(read.body.spec).toEqual({ image: 'x', replicas: 1, cronSpec: '* * * * *' });
    await first.stop();

    const second = await startTestChain(storage);
    const got = await send('GET', `${crontabs(second.url)}/a`);
    expect(got.status).toBe(200);
    expect(got.body.spec.cronSpec).toBe('* * * * *');
  });
});

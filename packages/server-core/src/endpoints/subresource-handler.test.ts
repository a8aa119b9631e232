import type { AdmissionAttributes } from '@kapi/admission';
import { type KubeObject, newForbidden } from '@kapi/apimachinery';
import { defineResource, Namespace, type Store } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Widget } from '../openapi/test-support/widget.ts';
import { json, post, testServers } from '../test-support/test-servers.ts';
import type { SubresourceStorage } from './subresource-storage.ts';

/**
 * Subresources served as storages: one a library user plugs into a kind at addResource (routes by the verbs it
 * implements, 404/405 otherwise, discovery, admission of a create), and kinds that refuse strategic merge patches.
 */

const start = testServers();

const GROUP = 'example.kapi.dev';
const widgets = (ns = 'default'): string => `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
const widget = (name: string, replicas: number) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { replicas } });
const SUMMARY_KIND = { group: GROUP, version: 'v1', kind: 'WidgetSummary' };
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const METHOD_NOT_ALLOWED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server does not allow this method on the requested resource',
  reason: 'MethodNotAllowed',
  details: {},
  code: 405,
};

/** A read-only `widgets/summary`: the widget's name and replicas, read through the kind's Store. */
const summary = (store: Store): SubresourceStorage => ({
  kind: SUMMARY_KIND,
  async get({ context, info }) {
    const w = (await store.get(context, info.name)) as KubeObject & { spec: { replicas: number } };
    return { apiVersion: `${GROUP}/v1`, kind: 'WidgetSummary', metadata: { name: info.name }, replicas: w.spec.replicas };
  },
});

/** A create-only `widgets/ping`: answers with the body it was given, stamped. */
const ping: SubresourceStorage = {
  kind: { group: GROUP, version: 'v1', kind: 'Ping' },
  async create({ info }, body) {
    return { object: { ...(body as KubeObject), metadata: { name: info.name }, pong: true } };
  },
};

describe('a subresource storage added with addResource', () => {
  it('serves the verbs it implements: GET 200; PUT, PATCH, POST, DELETE 405; an unknown subresource 404', async () => {
    const { url, server } = await start();
    await server.addResource(Widget, { subresources: new Map([['summary', summary]]) });
    expect((await post(`${url}${widgets()}`, widget('w', 3), {})).status).toBe(201);

    const got = await fetch(`${url}${widgets()}/w/summary`);
    expect(got.status).toBe(200);
    expect(await json(got)).toEqual({ apiVersion: `${GROUP}/v1`, kind: 'WidgetSummary', metadata: { name: 'w' }, replicas: 3 });
    // The kind's declared subresources are still served beside it.
    expect((await fetch(`${url}${widgets()}/w/status`)).status).toBe(200);
    expect((await fetch(`${url}${widgets()}/w/scale`)).status).toBe(200);

    for (const method of ['PUT', 'PATCH', 'POST', 'DELETE']) {
      const res = await fetch(`${url}${widgets()}/w/summary`, {
        method,
        headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
        body: method === 'DELETE' ? null : '{}',
      });
      expect([method, res.status]).toEqual([method, 405]);
      expect(await json(res)).toEqual(METHOD_NOT_ALLOWED);
    }
    const unknown = await fetch(`${url}${widgets()}/w/other`);
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).message).toBe('the server could not find the requested resource');
    // A missing parent object is the Store's 404.
    const missing = await fetch(`${url}${widgets()}/nope/summary`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).message).toBe(`widgets.${GROUP} "nope" not found`);
  });

  it('is served the same when given to the constructor for a kind of `resources`', async () => {
    const { url } = await start({ resources: [Namespace, Widget], subresources: new Map([[Widget, new Map([['summary', summary]])]]) });
    expect((await post(`${url}${widgets()}`, widget('w', 2), {})).status).toBe(201);
    expect((await json(await fetch(`${url}${widgets()}/w/summary`))).replicas).toBe(2);
    expect((await fetch(`${url}${widgets()}/w/summary`, { method: 'PUT', body: '{}' })).status).toBe(405);
  });

  it('is listed in legacy and aggregated discovery with its kind and the verbs it implements', async () => {
    const { url, server } = await start();
    await server.addResource(Widget, { subresources: new Map([['summary', summary]]) });
    const legacy = await json(await fetch(`${url}/apis/${GROUP}/v1`));
    const byName = new Map(legacy.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('widgets/summary')).toEqual({
      name: 'widgets/summary',
      singularName: '',
      namespaced: true,
      group: GROUP,
      version: 'v1',
      kind: 'WidgetSummary',
      verbs: ['get'],
    });
    expect(byName.get('widgets/status')).toEqual({
      name: 'widgets/status',
      singularName: '',
      namespaced: true,
      kind: 'Widget',
      verbs: ['get', 'patch', 'update'],
    });
    const aggregated = await json(await fetch(`${url}/apis`, { headers: { accept: AGGREGATED } }));
    const group = aggregated.items.find((g: { metadata: { name?: string } }) => g.metadata.name === GROUP);
    const w = group.versions[0].resources.find((r: { resource: string }) => r.resource === 'widgets');
    expect(w.subresources).toEqual([
      { subresource: 'status', responseKind: { group: GROUP, version: 'v1', kind: 'Widget' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'summary', responseKind: SUMMARY_KIND, verbs: ['get'] },
    ]);
    expect(
      server
        .subresources()
        .filter((s) => s.resource === 'widgets')
        .map((s) => s.subresource),
    ).toEqual(['status', 'scale', 'summary']);
  });

  it('admits a create with the subresource’s kind and the parent’s resource, and refuses it when admission does', async () => {
    const seen: AdmissionAttributes[] = [];
    const { url, server } = await start({
      admission: {
        async admit(attrs) {
          seen.push(attrs);
        },
        async validate(attrs) {
          if ((attrs.object as { refuse?: boolean } | null)?.refuse)
            throw newForbidden({ group: GROUP, resource: 'widgets' }, attrs.name, 'refused by test');
        },
      },
    });
    await server.addResource(Widget, { subresources: new Map([['ping', () => ping]]) });
    await post(`${url}${widgets()}`, widget('w', 1), {});
    seen.length = 0;
    const res = await post(`${url}${widgets()}/w/ping?dryRun=All`, { spec: 1 }, {});
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({ apiVersion: `${GROUP}/v1`, kind: 'Ping', metadata: { name: 'w' }, spec: 1, pong: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      operation: 'CREATE',
      kind: { group: GROUP, version: 'v1', kind: 'Ping' },
      resource: { group: GROUP, version: 'v1', resource: 'widgets' },
      subresource: 'ping',
      namespace: 'default',
      name: 'w',
      dryRun: true,
    });
    // A body of another kind is refused before admission.
    const wrong = await post(`${url}${widgets()}/w/ping`, { apiVersion: 'v1', kind: 'Pod' }, {});
    expect(wrong.status).toBe(400);
    expect(seen).toHaveLength(1);
    const refused = await post(`${url}${widgets()}/w/ping`, { refuse: true }, {});
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toBe(`widgets.${GROUP} "w" is forbidden: refused by test`);
  });
});

describe('namespaces/finalize, a storage of the parent’s kind that only updates', () => {
  it('PUT replaces spec.finalizers; GET and PATCH are 405; DELETE of the collection is 405; discovery lists update only', async () => {
    const { url } = await start();
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin' } };
    expect((await post(`${url}/api/v1/namespaces`, ns, {})).status).toBe(201);
    const put = await fetch(`${url}/api/v1/namespaces/fin/finalize`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ns, spec: { finalizers: [] } }),
    });
    expect(put.status).toBe(200);
    expect(await json(put)).toMatchObject({ kind: 'Namespace', metadata: { name: 'fin' }, spec: {} });
    expect((await json(await fetch(`${url}/api/v1/namespaces/fin`))).spec?.finalizers ?? []).toEqual([]);
    expect((await fetch(`${url}/api/v1/namespaces/fin/finalize`)).status).toBe(405);
    const patch = await fetch(`${url}/api/v1/namespaces/fin/finalize`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{}',
    });
    expect(patch.status).toBe(405);
    expect((await fetch(`${url}/api/v1/namespaces`, { method: 'DELETE' })).status).toBe(405);
    const legacy = await json(await fetch(`${url}/api/v1`));
    expect(legacy.resources.find((r: { name: string }) => r.name === 'namespaces/finalize')).toEqual({
      name: 'namespaces/finalize',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['update'],
    });
  });
});

/** A kind like a custom resource's: no strategic merge patch. */
const Gadget = defineResource({
  group: GROUP,
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
  strategicMergePatch: false,
  versions: [
    {
      name: 'v1',
      schema: z.object({
        spec: z.object({ size: z.number().optional() }).optional(),
        status: z.object({ ok: z.boolean().optional() }).optional(),
      }),
    },
  ],
  subresources: { status: true },
});
const gadgets = `/apis/${GROUP}/v1/namespaces/default/gadgets`;
const CR_PATCH_TYPES =
  'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

describe('a kind with strategicMergePatch: false', () => {
  const patch = (url: string, path: string, type: string, body: unknown) =>
    fetch(`${url}${path}`, { method: 'PATCH', headers: { 'content-type': type }, body: JSON.stringify(body) });

  it('answers a strategic merge patch with 415 and kube’s message for custom resources, on the object and its status', async () => {
    const { url } = await start({ resources: [Namespace, Gadget] });
    expect((await post(`${url}${gadgets}`, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' } }, {})).status).toBe(201);
    for (const path of [`${gadgets}/g`, `${gadgets}/g/status`]) {
      const res = await patch(url, path, 'application/strategic-merge-patch+json', { spec: { size: 2 } });
      expect([path, res.status]).toEqual([path, 415]);
      expect(await json(res)).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'UnsupportedMediaType',
        code: 415,
        message: CR_PATCH_TYPES,
      });
      // An unknown patch type lists the same types.
      const unknown = await patch(url, path, 'application/x-other', {});
      expect(unknown.status).toBe(415);
      expect((await json(unknown)).message).toBe(CR_PATCH_TYPES);
    }
    // Nothing was changed; a merge patch of the same content is served.
    const merged = await patch(url, `${gadgets}/g`, 'application/merge-patch+json', { spec: { size: 2 } });
    expect(merged.status).toBe(200);
    expect((await json(merged)).spec).toEqual({ size: 2 });
    const status = await patch(url, `${gadgets}/g/status`, 'application/merge-patch+json', { status: { ok: true } });
    expect(status.status).toBe(200);
    expect((await json(status)).status).toEqual({ ok: true });
  });

  it('leaves strategic merge patches of other kinds served, and their unknown-type 415 listing all four types', async () => {
    const { url } = await start({ resources: [Namespace, Gadget, Widget] });
    expect((await post(`${url}${widgets()}`, widget('w', 1), {})).status).toBe(201);
    const res = await patch(url, `${widgets()}/w`, 'application/strategic-merge-patch+json', { spec: { replicas: 2 } });
    expect(res.status).toBe(200);
    const unknown = await patch(url, `${widgets()}/w`, 'application/x-other', {});
    expect((await json(unknown)).message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });
});

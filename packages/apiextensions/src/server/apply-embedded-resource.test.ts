// Server-side apply on a custom resource whose schema embeds a resource (x-kubernetes-embedded-resource): kube's CRD
// OpenAPI builder gives the embedded object apiVersion, kind and a full ObjectMeta (addEmbeddedProperties), so an
// apply configuration may set them, and their fields are owned like any other.
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Json, send, startChain, type TestChain, until } from './test-support/chain.ts';

let t: TestChain;
beforeAll(async () => {
  t = await startChain(new MemoryStorage());
  await send('POST', `${t.url}/api/v1/namespaces`, { metadata: { name: 'ns' } });
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'podsets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'podsets', kind: 'PodSet' },
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
                    replicas: { type: 'integer' },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    template: {
                      type: 'object',
                      'x-kubernetes-embedded-resource': true,
                      properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
  expect((await send('POST', `${t.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, crd)).status).toBe(201);
  await until('podsets served', async () => {
    const res = await send('GET', `${t.url}/apis/example.com/v1/namespaces/ns/podsets`);
    return res.status === 200 ? true : undefined;
  });
});
afterAll(() => t.stop());

const apply = (manager: string, body: Json, force = false) =>
  fetch(`${t.url}/apis/example.com/v1/namespaces/ns/podsets/a?fieldManager=${manager}${force ? '&force=true' : ''}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
    body: JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Json }));

const podSet = (spec: Json) => ({ apiVersion: 'example.com/v1', kind: 'PodSet', metadata: { name: 'a' }, spec });

it('an embedded resource takes apiVersion, kind and metadata; two managers own their parts of it', async () => {
  const template = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { labels: { app: 'web' }, annotations: { note: 'x' } },
    spec: { image: 'nginx' },
  };
  const first = await apply('alice', podSet({ replicas: 1, template }));
  expect(first.status).toBe(201);
  expect(first.body.spec.template).toEqual(template);
  const alice = first.body.metadata.managedFields.find((e: Json) => e.manager === 'alice');
  expect(alice.fieldsV1['f:spec']['f:template']).toEqual({
    'f:apiVersion': {},
    'f:kind': {},
    'f:metadata': { 'f:annotations': { 'f:note': {} }, 'f:labels': { 'f:app': {} } },
    'f:spec': { 'f:image': {} },
  });

  // bob adds a label of the embedded metadata (a granular map, as ObjectMeta's labels) without conflict ...
  const second = await apply('bob', podSet({ template: { metadata: { labels: { tier: 'front' } } } }));
  expect(second.status).toBe(200);
  expect(second.body.spec.template.metadata.labels).toEqual({ app: 'web', tier: 'front' });
  // ... but changing alice's label conflicts at its path.
  const conflict = await apply('bob', podSet({ template: { metadata: { labels: { app: 'api' } } } }));
  expect(conflict.status).toBe(409);
  expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.template.metadata.labels.app');

  // An undeclared field of the embedded ObjectMeta is refused as any undeclared field.
  const bogus = await apply('bob', podSet({ template: { metadata: { bogus: 1 } } }));
  expect(bogus.status).toBe(400);
  expect(bogus.body.message).toBe(
    'failed to create typed patch object (/a; example.com/v1, Kind=PodSet): .spec.template.metadata.bogus: field not declared in schema',
  );

  // Where the schema preserves unknown fields, any field may be applied and is owned (SMD's deduced type); an
  // undeclared map entry is itself a member of the set (SMD's toFieldSet), hence the "." of a non-empty one.
  const open = await apply('carol', podSet({ extra: { anything: { deep: 1 } } }));
  expect(open.status).toBe(200);
  expect(open.body.spec.extra).toEqual({ anything: { deep: 1 } });
  const carol = open.body.metadata.managedFields.find((e: Json) => e.manager === 'carol');
  expect(carol.fieldsV1).toEqual({ 'f:spec': { 'f:extra': { 'f:anything': { '.': {}, 'f:deep': {} } } } });
});

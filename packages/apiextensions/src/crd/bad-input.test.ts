import { StatusError } from '@kapi/apimachinery';
import { Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { expect, it } from 'vitest';
import { CustomResourceDefinitionResource } from './crd-resource.ts';

// Bodies of the wrong JSON types anywhere the CRD's strategy and validation read: always a 422 Status, never a crash.
// biome-ignore lint/suspicious/noExplicitAny: bodies of any shape, as a client may send them.
type Body = any;

it('answers wrongly typed CRD bodies with 422, never a crash', async () => {
  const storage = new MemoryStorage();
  const store = new Store(CustomResourceDefinitionResource, { storage });
  const base = (): Body => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  });
  const edits: [string, (c: Body) => void][] = [
    ['schema string', (c) => (c.spec.versions[0].schema.openAPIV3Schema = 'x')],
    ['schema array', (c) => (c.spec.versions[0].schema.openAPIV3Schema = [1])],
    ['schema null', (c) => (c.spec.versions[0].schema = null)],
    ['props string', (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties = 'x')],
    ['prop null', (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties = { a: null })],
    ['items string', (c) => (c.spec.versions[0].schema.openAPIV3Schema = { type: 'array', items: 'x' })],
    ['xval string', (c) => (c.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'] = 'x')],
    ['xval item null', (c) => (c.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'] = [null])],
    ['rule number', (c) => (c.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'] = [{ rule: 5 }])],
    ['shortNames string', (c) => (c.spec.names.shortNames = 'x')],
    ['shortNames numbers', (c) => (c.spec.names.shortNames = [1])],
    ['categories obj', (c) => (c.spec.names.categories = {})],
    ['columns string', (c) => (c.spec.versions[0].additionalPrinterColumns = 'x')],
    ['column null', (c) => (c.spec.versions[0].additionalPrinterColumns = [null])],
    ['column num', (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 1, type: 2, jsonPath: 3 }])],
    ['selectable null', (c) => (c.spec.versions[0].selectableFields = [null])],
    ['selectable num', (c) => (c.spec.versions[0].selectableFields = [{ jsonPath: 5 }])],
    ['subresources string', (c) => (c.spec.versions[0].subresources = 'x')],
    ['scale num', (c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: 1, statusReplicasPath: [] } })],
    ['conversion webhook string', (c) => (c.spec.conversion = { strategy: 'Webhook', webhook: 'x' })],
    [
      'conversion crv string',
      (c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: 'v1', clientConfig: { url: 5 } } }),
    ],
    [
      'service null',
      (c) =>
        (c.spec.conversion = {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: null, url: null } },
        }),
    ],
    [
      'service path num',
      (c) =>
        (c.spec.conversion = {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'a', namespace: 'b', path: 5, port: 'x' } } },
        }),
    ],
    [
      'caBundle num',
      (c) =>
        (c.spec.conversion = {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://a.b', caBundle: 5 } },
        }),
    ],
    ['deprecationWarning num', (c) => (c.spec.versions[0] = { ...c.spec.versions[0], deprecated: true, deprecationWarning: 5 })],
    ['versions null item', (c) => (c.spec.versions = [null])],
    ['names null', (c) => (c.spec.names = null)],
    ['spec null', (c) => (c.spec = null)],
    ['status string', (c) => (c.status = 'x')],
    ['acceptedNames string', (c) => (c.status = { acceptedNames: 'x' })],
    [
      'default weird',
      (c) => (c.spec.versions[0].schema.openAPIV3Schema = { type: 'object', properties: { a: { type: 'string', default: { x: 1 } } } }),
    ],
    ['annotations', (c) => (c.metadata.annotations = { 'api-approved.kubernetes.io': 'x' })],
    [
      'status subresource root type',
      (c) => {
        c.spec.versions[0].subresources = { status: {} };
        c.spec.versions[0].schema.openAPIV3Schema = { type: 'string' };
      },
    ],
  ];
  const accepted = new Set(['status string', 'acceptedNames string', 'annotations']);
  for (const [name, edit] of edits) {
    const c = base();
    edit(c);
    const outcome = await store.create({}, c).then(
      () => 'created',
      (e: unknown) => (e instanceof StatusError ? e.code : e),
    );
    expect([name, outcome]).toEqual([name, accepted.has(name) ? 'created' : 422]);
    if (outcome === 'created') {
      // The first delete of a CRD only marks it (its instances go first): drop the cleanup finalizer to let it go.
      const { object } = await store.delete({}, 'widgets.example.com');
      await store.update({}, 'widgets.example.com', { ...object, metadata: { ...object.metadata, finalizers: [] } });
    }
  }
  const c = base();
  c.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'] = [{ rule: 5 }];
  const err = (await store.create({}, c).catch((e: unknown) => e)) as StatusError;
  expect(err.status.details?.causes?.map((x) => `${x.field}: ${x.message}`)).toEqual([
    'spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: "integer": spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule in body must be of type string: "integer"',
  ]);
  await storage.close();
});

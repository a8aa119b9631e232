// kube refuses unknown fields in a CRD under fieldValidation=Strict (kubectl's default) and warns under Warn.
import { Namespace } from '@kapi/registry';
import { GenericAPIServer, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { expect, it } from 'vitest';
import { APIExtensions } from '../server/apiextensions.ts';

it('a CRD with unknown fields is refused under fieldValidation=Strict, with kube’s words', async () => {
  const storage = new MemoryStorage();
  const chain = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [],
    providers: [new APIExtensions({ onError: () => {} }).provider()],
    delegate: new GenericAPIServer({ storage, resources: [Namespace] }),
  });
  await chain.start();
  const http = await listen(chain.handler);
  try {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        bogus: 1,
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'string', examples: ['a'] } } } },
          },
        ],
      },
    };
    const res = await fetch(`${http.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldValidation=Strict`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(crd),
    });
    const body = (await res.json()) as { message: string };
    expect(res.status).toBe(400);
    expect(body.message).toContain('unknown field "spec.bogus"');
    expect(body.message).toContain('unknown field "spec.versions[0].schema.openAPIV3Schema.properties[spec].examples"');
  } finally {
    await http.close();
    await chain.shutdown();
  }
});

it('crdUnknownFields walks the CRD types, schemas at any depth and every form a schema field takes', async () => {
  const { crdUnknownFields } = await import('./crd-unknown-fields.ts');
  const inner = {
    type: 'object',
    properties: { a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'true', severity: 'x' }] } },
    extra: 1,
  };
  expect(
    crdUnknownFields({
      spec: {
        group: 'g.io',
        names: { plural: 'ws', kind: 'W', short: ['x'] },
        versions: [
          {
            name: 'v1',
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  list: { type: 'array', items: inner },
                  map: { type: 'object', additionalProperties: inner },
                  flag: { type: 'object', additionalProperties: true },
                  any: { default: { whatever: 1 }, example: { also: 2 }, enum: [{ x: 1 }] },
                },
              },
            },
            subresources: { status: {}, scale: { specReplicasPath: '.spec.r', statusReplicasPath: '.status.r', selector: '.s' } },
            additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.a', width: 3 }],
          },
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x', insecure: true } },
        },
      },
      status: { conditions: [{ type: 'Established', status: 'True', seen: 1 }], acceptedNames: { plural: '', kind: '' } },
    }),
  ).toEqual([
    'spec.names.short',
    'spec.versions[0].schema.openAPIV3Schema.properties[list].items.properties[a].x-kubernetes-validations[0].severity',
    'spec.versions[0].schema.openAPIV3Schema.properties[list].items.extra',
    'spec.versions[0].schema.openAPIV3Schema.properties[map].additionalProperties.properties[a].x-kubernetes-validations[0].severity',
    'spec.versions[0].schema.openAPIV3Schema.properties[map].additionalProperties.extra',
    'spec.versions[0].subresources.scale.selector',
    'spec.versions[0].additionalPrinterColumns[0].width',
    'spec.conversion.webhook.clientConfig.insecure',
    'status.conditions[0].seen',
  ]);
});

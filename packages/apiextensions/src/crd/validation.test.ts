import { FakeClock, StatusError } from '@kapi/apimachinery';
import { Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { CustomResourceDefinitionResource } from './crd-resource.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from './types.ts';

// kube's CRD validation through a real Store: 422 Invalid with kube's causes (field: message).

let memory: MemoryStorage;
let store: Store<CustomResourceDefinition>;
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  store = new Store(CustomResourceDefinitionResource, { storage: memory, clock: new FakeClock(Date.parse('2026-03-01T10:00:00Z')) });
});
afterEach(() => memory.close());
const ctx = {};

const schema = (): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        color: { type: 'string' },
        replicas: { type: 'integer' },
        tags: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
});
const version = (name: string, edit: Partial<CustomResourceDefinitionVersion> = {}): CustomResourceDefinitionVersion => ({
  name,
  served: true,
  storage: true,
  schema: { openAPIV3Schema: schema() },
  ...edit,
});

function crd(edit: (c: CustomResourceDefinition) => void = () => {}): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [version('v1')] },
  };
  edit(c);
  return c;
}

async function causes(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(422);
  return ((err as StatusError).status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}
const createCauses = (edit: (c: CustomResourceDefinition) => void) => causes(store.create(ctx, crd(edit)));

const DNS1035 = (v: string) =>
  `Invalid value: "${v}": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`;

describe('CRD validation: names, group, scope', () => {
  it('accepts a valid CRD', async () => {
    const { object } = await store.create(ctx, crd());
    expect(object.metadata.name).toBe('widgets.example.com');
  });

  it('requires the name to be <plural>.<group>', async () => {
    expect(await createCauses((c) => (c.metadata.name = 'gadgets.example.com'))).toEqual([
      'metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
    ]);
  });

  it('checks the group', async () => {
    expect(
      await createCauses((c) => {
        c.spec.group = 'example';
        c.metadata.name = 'widgets.example';
      }),
    ).toEqual(['spec.group: Invalid value: "example": should be a domain with at least one dot']);
    expect(
      await createCauses((c) => {
        c.spec.group = '';
        c.metadata.name = 'widgets.';
      }),
    ).toContain('spec.group: Required value');
  });

  it('checks the scope', async () => {
    expect(await createCauses((c) => (c.spec.scope = ''))).toEqual(['spec.scope: Required value']);
    expect(await createCauses((c) => (c.spec.scope = 'Galaxy'))).toEqual([
      'spec.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"',
    ]);
  });

  it('checks names: DNS-1035 labels, kinds in mixed case, kind and listKind different', async () => {
    expect(
      await createCauses((c) => {
        c.spec.names = {
          plural: 'widgets',
          kind: 'Widget',
          singular: 'Widget',
          listKind: 'Widget',
          shortNames: ['w', '9w'],
          categories: ['all', 'Bad'],
        };
      }),
    ).toEqual([
      `spec.names.singular: ${DNS1035('Widget')}`,
      `spec.names.shortNames[1]: ${DNS1035('9w')}`,
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
      `spec.names.categories[1]: ${DNS1035('Bad')}`,
    ]);
    // singular defaults to the lowercased kind, so it fails too.
    expect(await createCauses((c) => (c.spec.names.kind = 'Wid_get'))).toEqual([
      `spec.names.singular: ${DNS1035('wid_get')}`,
      `spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${DNS1035('wid_get').slice('Invalid value: "wid_get": '.length)}`,
      `spec.names.listKind: Invalid value: "Wid_getList": may have mixed case, but should otherwise match: ${DNS1035('wid_getlist').slice('Invalid value: "wid_getlist": '.length)}`,
    ]);
  });

  it('requires a kind (singular and listKind then have no default)', async () => {
    expect(await createCauses((c) => (c.spec.names.kind = ''))).toEqual([
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
    ]);
  });
});

describe('CRD validation: versions', () => {
  it('requires exactly one storage version and unique DNS-1035 names', async () => {
    const out = await createCauses(
      (c) => (c.spec.versions = [version('v1'), version('V2', { storage: true }), version('v1', { storage: false })]),
    );
    expect(out[0]).toBe(`spec.versions[1].name: ${DNS1035('V2')}`);
    expect(out.slice(1).map((m) => m.replace(/Invalid value: .*: /, 'Invalid value: …: '))).toEqual([
      'spec.versions: Invalid value: …: must contain unique version names',
      'spec.versions: Invalid value: …: must have exactly one version marked as storage version',
      'status.storedVersions: Invalid value: …: must have the storage version V2',
    ]);
  });

  it('reports a bad first version name at spec.version too, as kube copies versions[0].name there', async () => {
    expect(await createCauses((c) => (c.spec.versions = [version('V1')]))).toEqual([
      `spec.versions[0].name: ${DNS1035('V1')}`,
      `spec.version: ${DNS1035('V1')}`,
    ]);
  });

  it('needs a storage version for status.storedVersions', async () => {
    expect(await createCauses((c) => (c.spec.versions = [version('v1', { storage: false })]))).toEqual([
      expect.stringMatching(/^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/),
      'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    ]);
  });

  it('requires a schema in every version', async () => {
    expect(
      await createCauses((c) => {
        c.spec.versions = [version('v1'), version('v2', { storage: false, schema: undefined })];
      }),
    ).toEqual(['spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required']);
  });

  it('checks deprecation warnings', async () => {
    expect(await createCauses((c) => (c.spec.versions = [version('v1', { deprecationWarning: 'old' })]))).toEqual([
      'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions',
    ]);
    expect(await createCauses((c) => (c.spec.versions = [version('v1', { deprecated: true, deprecationWarning: 'a\tb' })]))).toEqual([
      'spec.versions[0].deprecationWarning: Invalid value: "a\\tb": must only contain printable UTF-8 characters; non-printable character found at index 1',
    ]);
  });

  it('keeps storedVersions that are still versions, and refuses dropping one', async () => {
    const { object } = await store.create(
      ctx,
      crd((c) => (c.spec.versions = [version('v1', { storage: false }), version('v2')])),
    );
    expect(object.status?.storedVersions).toEqual(['v2']);
    const next = structuredClone(object);
    next.spec.versions = [version('v3')];
    expect(await causes(store.update(ctx, 'widgets.example.com', next))).toEqual([
      'status.storedVersions[0]: Invalid value: "v2": missing from spec.versions; v2 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v2 and removes v2 from status.storedVersions',
    ]);
  });
});

describe('CRD validation: schemas', () => {
  it("names a shared schema's errors at spec.validation, as kube's internal form hoists it", async () => {
    expect(
      await createCauses((c) => {
        const s = c.spec.versions[0]?.schema?.openAPIV3Schema as JSONSchemaProps;
        delete s.properties?.spec?.type;
      }),
    ).toEqual(['spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });

  it('names a per-version schema error at spec.versions[i].schema', async () => {
    expect(
      await createCauses((c) => {
        const v2 = version('v2', { storage: false });
        delete v2.schema?.openAPIV3Schema?.properties?.status?.type;
        c.spec.versions.push(v2);
      }),
    ).toEqual([
      'spec.versions[1].schema.openAPIV3Schema.properties[status].type: Required value: must not be empty for specified object fields',
    ]);
  });

  it('applies the schema rules (uniqueItems, unknown defaults, nullable root)', async () => {
    expect(
      await createCauses((c) => {
        const s = c.spec.versions[0]?.schema?.openAPIV3Schema as JSONSchemaProps;
        s.nullable = true;
        (s.properties as Record<string, JSONSchemaProps>).list = { type: 'array', items: { type: 'string' }, uniqueItems: true };
      }),
    ).toEqual([
      'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
      'spec.validation.openAPIV3Schema.properties[list].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    ]);
    expect(
      await createCauses((c) => {
        const s = c.spec.versions[0]?.schema?.openAPIV3Schema as JSONSchemaProps;
        (s.properties?.spec as JSONSchemaProps).default = { color: 'red', unknown: 1 };
      }),
    ).toEqual([
      'spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: {"color":"red","unknown":1}: must not have unknown fields',
    ]);
  });

  it('allows only some fields at the root when the status subresource is on', async () => {
    const out = await createCauses((c) => {
      const v = c.spec.versions[0] as CustomResourceDefinitionVersion;
      v.subresources = { status: {} };
      (v.schema?.openAPIV3Schema as JSONSchemaProps).minProperties = 1;
    });
    expect(out).toEqual([
      expect.stringMatching(
        /^spec\.validation\.openAPIV3Schema: Invalid value: .*: only \[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/,
      ),
    ]);
  });

  it('lets an update keep a stored non-structural schema only where pruning is off (preserveUnknownFields, from v1beta1)', async () => {
    // Stored behind the Store's back, as by an older server. kube requires structural schemas whenever
    // spec.preserveUnknownFields is false, on update too, so only such legacy CRDs keep theirs.
    const legacy = crd((c) => {
      delete c.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.type;
      c.spec.preserveUnknownFields = true;
    });
    legacy.spec.names = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' };
    legacy.status = { acceptedNames: { plural: 'widgets', kind: 'Widget' }, storedVersions: ['v1'] };
    await memory.create(`${store.keys.resourcePrefix}/widgets.example.com`, {
      ...legacy,
      metadata: { ...legacy.metadata, uid: 'u1', generation: 1 },
    });
    const current = (await store.get(ctx, 'widgets.example.com')) as CustomResourceDefinition;
    const relabelled = { ...current, metadata: { ...current.metadata, labels: { team: 'a' } } };
    expect((await store.update(ctx, 'widgets.example.com', relabelled)).object.metadata.labels).toEqual({ team: 'a' });

    const { object } = await store.create(
      ctx,
      crd((c) => {
        c.metadata.name = 'gadgets.example.com';
        c.spec.names = { plural: 'gadgets', kind: 'Gadget' };
      }),
    );
    const broken = structuredClone(object);
    delete broken.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.type;
    expect(await causes(store.update(ctx, 'gadgets.example.com', broken))).toEqual([
      'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ]);
  });
});

describe('CRD validation: subresources, columns, selectable fields', () => {
  it('checks scale paths', async () => {
    expect(
      await createCauses((c) => {
        (c.spec.versions[0] as CustomResourceDefinitionVersion).subresources = {
          scale: { specReplicasPath: '.status.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: '.metadata.labels' },
        };
      }),
    ).toEqual([
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .',
      'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ]);
    expect(
      await createCauses((c) => {
        (c.spec.versions[0] as CustomResourceDefinitionVersion).subresources = { scale: { specReplicasPath: '', statusReplicasPath: '' } };
      }),
    ).toEqual(['spec.subresources.scale.specReplicasPath: Required value', 'spec.subresources.scale.statusReplicasPath: Required value']);
  });

  it('checks printer columns (kube names the path JSONPath)', async () => {
    expect(
      await createCauses((c) => {
        (c.spec.versions[0] as CustomResourceDefinitionVersion).additionalPrinterColumns = [
          { name: '', type: 'float', format: 'uuid', jsonPath: 'spec.color' },
          { name: 'Replicas', type: '', jsonPath: '' },
        ];
      }),
    ).toEqual([
      'spec.additionalPrinterColumns[0].name: Required value',
      'spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.color": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[1].JSONPath: Required value',
    ]);
  });

  it('checks selectable fields against the schema', async () => {
    const fields = ['.spec.color', '.spec.missing', '.spec', '.spec.color', ".spec.tags['a']", '.metadata.name', ''];
    const out = await createCauses((c) => {
      (c.spec.versions[0] as CustomResourceDefinitionVersion).selectableFields = fields.map((jsonPath) => ({ jsonPath }));
    });
    expect(out).toEqual([
      'spec.selectableFields[1].jsonPath: Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field',
      'spec.selectableFields[2].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.selectableFields[3].jsonPath: Duplicate value: ".spec.color"',
      `spec.selectableFields[4].jsonPath: Invalid value: ".spec.tags['a']": is an invalid path: array notation is not allowed`,
      'spec.selectableFields[5].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field',
      'spec.selectableFields[6].jsonPath: Required value',
    ]);
  });
});

describe('CRD validation: conversion', () => {
  it('requires a client config and review versions for Webhook', async () => {
    expect(await createCauses((c) => (c.spec.conversion = { strategy: 'Webhook' }))).toEqual([
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
    ]);
    expect(await createCauses((c) => (c.spec.conversion = { strategy: 'Magic' }))).toEqual([
      'spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"',
    ]);
  });

  it('checks the webhook URL and review versions', async () => {
    expect(
      await createCauses(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { url: 'http://user@hook.example.com/convert?x=1#top' },
              conversionReviewVersions: ['v2', 'v2', 'V3'],
            },
          }),
      ),
    ).toEqual([
      `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.webhookClientConfig.url: Invalid value: "user": user information is not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "top": fragments are not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
      `spec.conversion.conversionReviewVersions[2]: ${DNS1035('V3')}`,
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2", "v2", "V3"}: must include at least one of v1, v1beta1',
    ]);
  });

  it('checks a webhook Service as kube does, name and namespace swapped in the paths', async () => {
    expect(
      await createCauses(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { service: { namespace: 'default', name: '', path: 'convert//Now', port: 70000 } },
              conversionReviewVersions: ['v1'],
            },
          }),
      ),
    ).toEqual([
      'spec.conversion.webhookClientConfig.service.namespace: Required value',
      'spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      `spec.conversion.webhookClientConfig.service.path: Invalid value: "convert//Now": must start with a '/'`,
      'spec.conversion.webhookClientConfig.service.path: Invalid value: "convert//Now": segment[1] may not be empty',
      `spec.conversion.webhookClientConfig.service.path: Invalid value: "convert//Now": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('refuses webhook settings with strategy None, and exactly one of url or service', async () => {
    expect(
      await createCauses(
        (c) =>
          (c.spec.conversion = {
            strategy: 'None',
            webhook: { clientConfig: { url: 'https://a.example.com' }, conversionReviewVersions: ['v1'] },
          }),
      ),
    ).toEqual([
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]);
    expect(
      await createCauses(
        (c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: {}, conversionReviewVersions: ['v1'] } }),
      ),
    ).toEqual(['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required']);
  });

  it('defaults a webhook Service port to 443', async () => {
    const { object } = await store.create(
      ctx,
      crd(
        (c) =>
          (c.spec.conversion = {
            strategy: 'Webhook',
            webhook: { clientConfig: { service: { namespace: 'default', name: 'hook' } }, conversionReviewVersions: ['v1'] },
          }),
      ),
    );
    expect(object.spec.conversion?.webhook?.clientConfig?.service?.port).toBe(443);
  });
});

describe('CRD validation: updates and kube-only rules', () => {
  it('keeps group and plural immutable, and scope and kind once established', async () => {
    const { object } = await store.create(ctx, crd());
    const changed = structuredClone(object);
    changed.spec.scope = 'Cluster';
    changed.spec.names.kind = 'Gadget';
    changed.spec.names.listKind = 'GadgetList';
    // Not established yet: scope and kind may change.
    const updated = (await store.update(ctx, 'widgets.example.com', changed)).object;
    const established = structuredClone(updated);
    established.status = {
      ...established.status,
      conditions: [
        { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
    };
    const withStatus = (await store.update(ctx, 'widgets.example.com', established, { subresource: 'status' })).object;
    const again = structuredClone(withStatus);
    again.spec.scope = 'Namespaced';
    again.spec.names.kind = 'Widget';
    again.spec.group = 'other.example.com';
    again.spec.names.plural = 'things';
    // The name rule is create-only in kube (ValidateObjectMetaUpdate has no name function): the immutable fields speak.
    expect(await causes(store.update(ctx, 'widgets.example.com', again))).toEqual([
      'spec.scope: Invalid value: "Namespaced": field is immutable',
      'spec.names.kind: Invalid value: "Widget": field is immutable',
      'spec.group: Invalid value: "other.example.com": field is immutable',
      'spec.names.plural: Invalid value: "things": field is immutable',
    ]);
  });

  it('needs the API approval annotation in *.k8s.io groups', async () => {
    const k8s = (annotations?: Record<string, string>) =>
      crd((c) => {
        c.spec.group = 'widgets.k8s.io';
        c.metadata.name = 'widgets.widgets.k8s.io';
        if (annotations) c.metadata.annotations = annotations;
      });
    expect(await causes(store.create(ctx, k8s()))).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    expect(await causes(store.create(ctx, k8s({ 'api-approved.kubernetes.io': 'yes' })))).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    await store.create(ctx, k8s({ 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' }));
  });

  it('refuses preserveUnknownFields true', async () => {
    expect(await createCauses((c) => (c.spec.preserveUnknownFields = true))).toEqual([
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
  });
});

describe('CRD validation: default values', () => {
  it('checks each default against the schema it sits in', async () => {
    const out = await createCauses((c) => {
      const spec = c.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec as JSONSchemaProps;
      (spec.properties as Record<string, JSONSchemaProps>).replicas = { type: 'integer', maximum: 5, default: 7 };
      (spec.properties as Record<string, JSONSchemaProps>).color = { type: 'string', enum: ['red'], default: 'blue' };
    });
    expect(out).toEqual([
      'spec.validation.openAPIV3Schema.properties[spec].properties[color].default: Unsupported value: "blue": supported values: "red"',
      // kube-openapi validates the default as a root value (name ""), hence the bare " in body".
      'spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: 7:  in body should be less than or equal to 5',
    ]);
  });
});

describe('CRD validation: caBundle', () => {
  const webhook = (caBundle: string) => ({
    strategy: 'Webhook',
    webhook: { clientConfig: { url: 'https://hook.example.com/convert', caBundle }, conversionReviewVersions: ['v1'] },
  });
  const notPEM = Buffer.from('no').toString('base64');

  it('takes an invalid caBundle until the CRD is Established, then only a valid one (unless the stored one is invalid)', async () => {
    const { makeTestCA } = await import('../../../authn/src/test-support/test-ca.ts');
    const good = Buffer.from((await makeTestCA('crd-ca')).pem).toString('base64');
    const { object } = await store.create(
      ctx,
      crd((c) => (c.spec.conversion = webhook(notPEM))),
    );
    const established = structuredClone(object);
    established.status = {
      ...established.status,
      conditions: [
        { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
    };
    let current = (await store.update(ctx, 'widgets.example.com', established, { subresource: 'status' })).object;
    // The stored bundle is invalid: another invalid one is let through.
    const other = structuredClone(current);
    other.spec.conversion = webhook(Buffer.from('still no').toString('base64'));
    current = (await store.update(ctx, 'widgets.example.com', other)).object;
    const fixed = structuredClone(current);
    fixed.spec.conversion = webhook(good);
    current = (await store.update(ctx, 'widgets.example.com', fixed)).object;
    // Now that a valid one is stored, an invalid one is refused.
    const broken = structuredClone(current);
    broken.spec.conversion = webhook(notPEM);
    expect(await causes(store.update(ctx, 'widgets.example.com', broken))).toEqual([
      'spec.conversion.webhookClientConfig.caBundle: Invalid value: []byte{0x6e, 0x6f}: data does not contain any valid RSA or ECDSA certificates',
    ]);
  });
});

describe('CRD validation: x-kubernetes-validations rules compile', () => {
  it('refuses a rule that does not compile or does not give a bool, with kube’s value and detail', async () => {
    const out = await createCauses((c) => {
      const spec = c.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec as JSONSchemaProps;
      spec['x-kubernetes-validations'] = [
        { rule: 'self.replicas > other' },
        { rule: "'text'" },
        { rule: 'self.replicas >= 0' },
        { rule: 'self.replicas >= 1', messageExpression: '1 + 1' },
      ];
    });
    const rule = (r: string) =>
      `apiextensions.ValidationRule{Rule:${JSON.stringify(r)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
    expect(out).toEqual([
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${rule('self.replicas > other')}: compilation failed: ERROR: <input>:1:17: undeclared reference to 'other' (in container '')\n | self.replicas > other\n | ................^`,
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: ${rule("'text'")}: cel expression must evaluate to a bool`,
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[3].messageExpression: Invalid value: ${rule('self.replicas >= 1').replace('MessageExpression:""', 'MessageExpression:"1 + 1"')}: messageExpression must evaluate to a string`,
    ]);
  });
});

describe('CRD validation: x-kubernetes-validations rules are typed by their schema', () => {
  const at = 'spec.validation.openAPIV3Schema.properties[spec]';
  const specOf = (c: CustomResourceDefinition) => c.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec as JSONSchemaProps;

  it('refuses a rule that fits dyn but not the schema’s types', async () => {
    const out = await createCauses((c) => {
      specOf(c)['x-kubernetes-validations'] = [
        { rule: "self.replicas + 'x' == 'y'" },
        { rule: 'self.colour == "red"' },
        { rule: 'self.replicas > 1' },
      ];
    });
    expect(out).toHaveLength(2);
    expect(out[0]).toContain(
      `${at}.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicas + 'x' == 'y'"`,
    );
    expect(out[0]).toContain(": compilation failed: ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'");
    expect(out[1]).toContain("compilation failed: ERROR: <input>:1:5: undefined field 'colour'");
  });

  it('refuses oldSelf under a list that does not correlate, optionalOldSelf without oldSelf, and a fieldPath the node lacks', async () => {
    const out = await createCauses((c) => {
      const spec = specOf(c);
      spec.properties = {
        ...spec.properties,
        atomic: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
        keyed: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: {
            type: 'object',
            required: ['k'],
            properties: { k: { type: 'string' } },
            'x-kubernetes-validations': [{ rule: 'self.k == oldSelf.k' }],
          },
        },
      };
      spec['x-kubernetes-validations'] = [
        { rule: 'self.replicas >= 0', optionalOldSelf: true },
        { rule: 'self.replicas >= 0', fieldPath: '.nosuch' },
      ];
    });
    expect(out).toEqual([
      `${at}.x-kubernetes-validations[1].fieldPath: Invalid value: ".nosuch": fieldPath must be a valid path`,
      `${at}.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
      `${at}.properties[atomic].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}.properties[atomic]`,
    ]);
  });
});

describe('CRD validation: deeply nested schemas', () => {
  const deep = (levels: number): JSONSchemaProps => {
    const leaf: JSONSchemaProps = { type: 'object' };
    let node = leaf;
    for (let i = 0; i < levels; i++) {
      const next: JSONSchemaProps = { type: 'object' };
      node.properties = { a: next };
      node = next;
    }
    return { type: 'object', properties: { spec: leaf } };
  };
  const tooDeep = 'spec.validation.openAPIV3Schema: Forbidden: must not be nested more than 1000 schemas deep';

  it('refuses a schema nested past the limit with a 422 on create and update, not a stack overflow', async () => {
    expect(
      await createCauses((c) => ((c.spec.versions[0] as CustomResourceDefinitionVersion).schema = { openAPIV3Schema: deep(3000) })),
    ).toEqual([tooDeep]);
    const { object } = await store.create(ctx, crd());
    const next = structuredClone(object);
    (next.spec.versions[0] as CustomResourceDefinitionVersion).schema = { openAPIV3Schema: deep(3000) };
    expect(await causes(store.update(ctx, 'widgets.example.com', next))).toEqual([tooDeep]);
    // Just under the limit is fine.
    expect(
      (
        await store.create(
          ctx,
          crd((c) => {
            c.metadata.name = 'gadgets.example.com';
            c.spec.names = { plural: 'gadgets', kind: 'Gadget' };
            (c.spec.versions[0] as CustomResourceDefinitionVersion).schema = { openAPIV3Schema: deep(990) };
          }),
        )
      ).object.metadata.name,
    ).toBe('gadgets.example.com');
  });
});

import { FakeClock, StatusError } from '@kapi/apimachinery';
import { Store, toTable } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CustomResourceDefinitionResource } from './crd-resource.ts';
import type { CustomResourceDefinition } from './types.ts';

let memory: MemoryStorage;
let store: Store<CustomResourceDefinition>;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  store = new Store(CustomResourceDefinitionResource, { storage: memory, clock });
});
afterEach(() => memory.close());
const ctx = {};

const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { color: { type: 'string' }, replicas: { type: 'integer' } } },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};

/** A valid CRD, changed by `edit`. */
function crd(edit: (c: CustomResourceDefinition) => void = () => {}): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: structuredClone(schema) } }],
    },
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

describe('CustomResourceDefinition kind', () => {
  it('is cluster-scoped apiextensions.k8s.io/v1 with kube short names, category and status subresource', () => {
    const d = CustomResourceDefinitionResource;
    expect(d.groupResource).toEqual({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' });
    expect(d.namespaced).toBe(false);
    expect(d.shortNames).toEqual(['crd', 'crds']);
    expect(d.categories).toEqual(['api-extensions']);
    expect(d.subresources.status).toBe(true);
  });

  it('defaults names and conversion, clears status and records the storage version on create', async () => {
    const { object } = await store.create(
      ctx,
      crd((c) => {
        c.status = { acceptedNames: { plural: 'x', kind: 'X' }, storedVersions: ['v9'] };
      }),
    );
    expect(object.spec.names).toEqual({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' });
    expect(object.spec.conversion).toEqual({ strategy: 'None' });
    expect(object.status).toEqual({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    expect(object.metadata.generation).toBe(1);
    const table = toTable(CustomResourceDefinitionResource, object, { clock });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect(table.rows[0]?.cells).toEqual(['widgets.example.com', '2026-03-01T10:00:00Z']);
  });

  it('bumps generation on spec changes only, keeps status on update and appends a new storage version', async () => {
    const { object: created } = await store.create(ctx, crd());
    const same = await store.update(ctx, 'widgets.example.com', {
      ...created,
      metadata: { ...created.metadata, labels: { a: 'b' } },
      status: { storedVersions: ['zzz'] },
    });
    expect(same.object.metadata.generation).toBe(1);
    expect(same.object.status?.storedVersions).toEqual(['v1']);
    const next = structuredClone(same.object);
    next.spec.versions = [
      { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: structuredClone(schema) } },
      { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { ...structuredClone(schema), description: 'v2' } } },
    ];
    const updated = await store.update(ctx, 'widgets.example.com', next);
    expect(updated.object.metadata.generation).toBe(2);
    expect(updated.object.status?.storedVersions).toEqual(['v1', 'v2']);
  });

  it('writes status only through the status subresource', async () => {
    const { object: created } = await store.create(ctx, crd());
    const withStatus = structuredClone(created);
    withStatus.status = { ...withStatus.status, acceptedNames: { plural: 'widgets', kind: 'Widget' } };
    withStatus.spec.scope = 'Cluster';
    const { object } = await store.update(ctx, 'widgets.example.com', withStatus, { subresource: 'status' });
    expect(object.status?.acceptedNames).toEqual({ plural: 'widgets', kind: 'Widget' });
    expect(object.spec.scope).toBe('Namespaced');
    const bad = structuredClone(object);
    bad.status = { ...bad.status, acceptedNames: { plural: 'Widgets!', kind: 'Widget', listKind: 'Widget' } };
    expect(await causes(store.update(ctx, 'widgets.example.com', bad, { subresource: 'status' }))).toEqual([
      `status.acceptedNames.plural: Invalid value: "Widgets!": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      'status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    ]);
    // A condition time Go could not decode is a 400, as kube's decoder answers, and is not stored.
    const garbage = structuredClone(object);
    garbage.status = { ...garbage.status, conditions: [{ type: 'Established', status: 'True', lastTransitionTime: 'garbage' }] };
    const err = (await store
      .update(ctx, 'widgets.example.com', garbage, { subresource: 'status' })
      .catch((e: unknown) => e)) as StatusError;
    expect(err.code).toBe(400);
    expect(err.message).toBe(
      'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
    );
  });
});

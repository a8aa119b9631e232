import { AGE_COLUMN, customResourceDefinitionOf, defineResource, intOrString, listMap, listSet, Namespace } from '@kapi/registry';
import { GenericAPIServer, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { APIExtensions } from './apiextensions.ts';

/**
 * One model for both kinds of kinds: a defineResource kind exported with customResourceDefinitionOf and installed
 * into an APIExtensions chain is served like the kind itself served by a plain GenericAPIServer. Each check sends the
 * same request to both servers and compares the answers; where kube's structural-schema validation (the CRD side,
 * worded as kube-apiserver words it) and zod's (the defineResource side) disagree, each answer is asserted and the
 * comment says why.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

const GROUP = 'roundtrip.kapi.dev';
const Gizmo = defineResource({
  group: GROUP,
  kind: 'Gizmo',
  plural: 'gizmos',
  singular: 'gizmo',
  shortNames: ['gz'],
  categories: ['all', 'gadgets'],
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z.object({
        spec: z.object({
          replicas: z.int().min(0).max(10).default(1),
          color: z.enum(['red', 'green', 'blue']).default('red'),
          size: z.string().max(5).optional(),
          strategy: z
            .object({ type: z.enum(['Recreate', 'Rolling']).default('Rolling'), surge: intOrString().optional() })
            .default({ type: 'Rolling' }),
          image: z
            .string()
            .regex(/^[a-z]+$/u)
            .min(2)
            .optional(),
          note: z.string().nullable().optional(),
          labels: z.record(z.string(), z.string()).optional(),
          tags: listSet(z.array(z.string())).optional(),
          ports: listMap(z.array(z.object({ name: z.string(), port: z.int().min(1).max(65535) })), ['name']).optional(),
        }),
        status: z.object({ replicas: z.int().optional(), selector: z.string().optional() }).optional(),
      }),
    },
  ],
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
  },
  printerColumns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Color', type: 'string', jsonPath: '.spec.color', description: 'The colour.' },
    AGE_COLUMN,
    { name: 'Size', type: 'string', jsonPath: '.spec.size', priority: 1 },
  ],
  selectableFields: [{ jsonPath: '.spec.color' }],
});
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GIZMOS = `/apis/${GROUP}/v1/namespaces/default/gizmos`;

const stops: (() => Promise<void>)[] = [];
let crdURL = '';
let nativeURL = '';

async function send(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The same request to the CRD's server and to the defineResource kind's: [crd, native]. */
function both(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  return Promise.all([send(method, crdURL + path, body, headers), send(method, nativeURL + path, body, headers)]);
}

const gizmo = (name: string, spec: Json, extra: Json = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Gizmo',
  metadata: { name },
  spec,
  ...extra,
});

beforeAll(async () => {
  const storage = new MemoryStorage();
  const controlPlane = new GenericAPIServer({ storage, resources: [Namespace] });
  const chain = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [],
    providers: [new APIExtensions({ retryAfterMs: 50, onError: () => {} }).provider()],
    delegate: controlPlane,
  });
  const native = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, Gizmo] });
  await chain.start();
  await native.start();
  const chainHTTP = await listen(chain.handler);
  const nativeHTTP = await listen(native.handler);
  stops.push(async () => {
    await chainHTTP.close();
    // The chain's first server shuts its delegate down.
    await chain.shutdown();
  });
  stops.push(async () => {
    await nativeHTTP.close();
    await native.shutdown();
  });
  crdURL = chainHTTP.url;
  nativeURL = nativeHTTP.url;

  const crd = await send('POST', crdURL + CRDS, customResourceDefinitionOf(Gizmo));
  expect(crd.status).toBe(201);
  // The servers make the default namespace themselves (kube's system namespaces controller); 409 when it is there.
  for (const url of [crdURL, nativeURL])
    expect([201, 409]).toContain((await send('POST', `${url}/api/v1/namespaces`, { metadata: { name: 'default' } })).status);
  const deadline = Date.now() + 5000;
  while ((await send('GET', crdURL + GIZMOS)).status !== 200) {
    if (Date.now() > deadline) throw new Error('the CRD was not served');
    await new Promise((r) => setTimeout(r, 10));
  }
});
afterAll(async () => {
  for (const stop of stops) await stop();
});

describe('a defineResource kind installed as a CRD (customResourceDefinitionOf) is served as the kind itself', () => {
  it('the manifest is accepted as it is: names, scope, the version with its subresources, columns and selectable fields', async () => {
    const manifest = customResourceDefinitionOf(Gizmo);
    const { body } = await send('GET', `${crdURL}${CRDS}/gizmos.${GROUP}`);
    // The server's defaulting adds nothing the manifest left out.
    expect(body.spec).toEqual(manifest.spec);
    expect(body.status.acceptedNames).toEqual(manifest.spec.names);
    expect(body.status.conditions.map((c: Json) => [c.type, c.status])).toEqual(
      expect.arrayContaining([
        ['NamesAccepted', 'True'],
        ['Established', 'True'],
      ]),
    );
  });

  it('defaults: absent fields, a defaulted object and its own defaults, pruning of unknown fields', async () => {
    for (const [name, spec, want] of [
      ['d-empty', {}, { replicas: 1, color: 'red', strategy: { type: 'Rolling' } }],
      ['d-object', { strategy: {} }, { replicas: 1, color: 'red', strategy: { type: 'Rolling' } }],
      [
        'd-set',
        { replicas: 0, color: 'blue', strategy: { type: 'Recreate', surge: '10%' }, note: null, junk: 1 },
        { replicas: 0, color: 'blue', strategy: { type: 'Recreate', surge: '10%' }, note: null },
      ],
    ] as [string, Json, Json][]) {
      const [crd, native] = await both('POST', GIZMOS, gizmo(name, spec, { status: { replicas: 5 } }));
      expect([crd.status, native.status]).toEqual([201, 201]);
      // Status is cleared on create by both (status subresource); the unknown field is pruned by both.
      expect(crd.body.spec).toEqual(want);
      expect(native.body.spec).toEqual(want);
      expect([crd.body.status, native.body.status]).toEqual([undefined, undefined]);
      // And read back the same.
      const [got, gotNative] = await both('GET', `${GIZMOS}/${name}`);
      expect(got.body.spec).toEqual(gotNative.body.spec);
    }
  });

  it('validation: the same 422 Status, causes and message where kube and zod agree', async () => {
    for (const [name, spec] of [
      ['v-bounds-enum-length-set', { replicas: 11, color: 'pink', size: 'toolong', tags: ['x', 'x'] }],
      ['v-min-length', { image: 'a' }],
      ['v-items', { ports: [{ name: 'http', port: 0 }] }],
    ] as [string, Json][]) {
      const [crd, native] = await both('POST', GIZMOS, gizmo(name, spec));
      expect(crd.status).toBe(422);
      expect(crd.body).toEqual(native.body);
    }
    const [crd] = await both(
      'POST',
      GIZMOS,
      gizmo('v-bounds-enum-length-set', { replicas: 11, color: 'pink', size: 'toolong', tags: ['x', 'x'] }),
    );
    expect(crd.body.message).toBe(
      'Gizmo.roundtrip.kapi.dev "v-bounds-enum-length-set" is invalid: [spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10, spec.color: Unsupported value: "pink": supported values: "red", "green", "blue", spec.size: Too long: may not be more than 5 bytes, spec.tags[1]: Duplicate value: "x"]',
    );
    const [noSpec, noSpecNative] = await both('POST', GIZMOS, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Gizmo',
      metadata: { name: 'v-no-spec' },
    });
    expect(noSpec.body).toEqual(noSpecNative.body);
    expect(noSpec.body.message).toBe('Gizmo.roundtrip.kapi.dev "v-no-spec" is invalid: spec: Required value');
  });

  it('validation: where kube’s words and zod’s differ, each side’s answer', async () => {
    const post = async (name: string, spec: Json) => {
      const [crd, native] = await both('POST', GIZMOS, gizmo(name, spec));
      return [crd.status, crd.body.message, native.status, native.body.message];
    };
    // A duplicate key of a map list: both print the key as kube does, Go's %#v of a map.
    expect(
      await post('x-map-key', {
        ports: [
          { name: 'a', port: 1 },
          { name: 'a', port: 2 },
        ],
      }),
    ).toEqual([
      422,
      'Gizmo.roundtrip.kapi.dev "x-map-key" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}',
      422,
      'Gizmo.roundtrip.kapi.dev "x-map-key" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}',
    ]);
    // kube-openapi reports an object's properties before its missing required fields; zod goes in declaration order.
    expect(await post('x-order', { ports: [{ port: 0 }] })).toEqual([
      422,
      'Gizmo.roundtrip.kapi.dev "x-order" is invalid: [spec.ports[0].port: Invalid value: 0: spec.ports[0].port in body should be greater than or equal to 1, spec.ports[0].name: Required value]',
      422,
      'Gizmo.roundtrip.kapi.dev "x-order" is invalid: [spec.ports[0].name: Required value, spec.ports[0].port: Invalid value: 0: spec.ports[0].port in body should be greater than or equal to 1]',
    ]);
    // kube prunes a null in a field that is not nullable before validating: a null spec is then missing, and a null
    // strategy takes its default. A defineResource kind decodes a null as Go does, as the field's zero value: the same.
    expect(await post('x-null-spec', null)).toEqual([
      422,
      'Gizmo.roundtrip.kapi.dev "x-null-spec" is invalid: spec: Required value',
      422,
      'Gizmo.roundtrip.kapi.dev "x-null-spec" is invalid: spec: Required value',
    ]);
    const nullObject = await post('x-null-object', { strategy: null });
    expect([nullObject[0], nullObject[2]]).toEqual([201, 201]);
    // kube-openapi's string validator stops at the first failed check (length before pattern); zod reports both.
    expect(await post('x-string', { image: 'A' })).toEqual([
      422,
      'Gizmo.roundtrip.kapi.dev "x-string" is invalid: spec.image: Invalid value: "A": spec.image in body should be at least 2 chars long',
      422,
      'Gizmo.roundtrip.kapi.dev "x-string" is invalid: [spec.image: Invalid value: "A": spec.image in body should match \'^[a-z]+$\', spec.image: Invalid value: "A": spec.image in body should be at least 2 chars long]',
    ]);
    // A map's key: kube-openapi joins it to the path with a dot, registry with brackets (as kube's typed validation).
    expect(await post('x-map', { labels: { a: 1 } })).toEqual([
      422,
      'Gizmo.roundtrip.kapi.dev "x-map" is invalid: spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
      422,
      'Gizmo.roundtrip.kapi.dev "x-map" is invalid: spec.labels[a]: Invalid value: "integer": spec.labels[a] in body must be of type string: "integer"',
    ]);
    // A value of the wrong type: a custom resource is validated whole, the scale subresource's own check of the
    // replicas it reads included (kube's ValidateScaleSpec); a kind of Go types (as a defineResource kind is served)
    // fails decoding on the type alone, before anything else looks. kube-openapi's number validator also repeats a
    // non-integer's type error as a range check (and an int-or-string's anyOf adds its own errors, one at <nil>, as
    // kube-apiserver reports them).
    const typeError = 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"';
    expect(await post('x-type', { replicas: 'x' })).toEqual([
      422,
      `Gizmo.roundtrip.kapi.dev "x-type" is invalid: [${typeError}, .spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64]`,
      422,
      `Gizmo.roundtrip.kapi.dev "x-type" is invalid: ${typeError}`,
    ]);
    const scaleCheck = '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 2.5 is of the type float64, expected int64';
    expect(await post('x-float', { replicas: 2.5 })).toEqual([
      422,
      `Gizmo.roundtrip.kapi.dev "x-float" is invalid: [spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number", <nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas, ${scaleCheck}]`,
      422,
      'Gizmo.roundtrip.kapi.dev "x-float" is invalid: spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    ]);
    expect(await post('x-int-or-string', { strategy: { surge: true } })).toEqual([
      422,
      'Gizmo.roundtrip.kapi.dev "x-int-or-string" is invalid: [spec.strategy.surge: Invalid value: "boolean": spec.strategy.surge in body must be of type integer,string: "boolean", <nil>: Invalid value: "": "spec.strategy.surge" must validate at least one schema (anyOf), spec.strategy.surge: Invalid value: "boolean": spec.strategy.surge in body must be of type integer: "boolean"]',
      422,
      'Gizmo.roundtrip.kapi.dev "x-int-or-string" is invalid: spec.strategy.surge: Invalid value: "boolean": spec.strategy.surge in body must be of type integer,string: "boolean"',
    ]);
  });

  it('Table: the same columns, and the same cells', async () => {
    for (const name of ['t-1', 't-2']) await both('POST', GIZMOS, gizmo(name, { replicas: 2, color: 'green', size: 's' }));
    const [crd, native] = await both('GET', `${GIZMOS}?labelSelector=`, undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(crd.body.columnDefinitions).toEqual(native.body.columnDefinitions);
    expect(crd.body.columnDefinitions.map((c: Json) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Replicas', 'integer', 0],
      ['Color', 'string', 0],
      ['Age', 'date', 0],
      ['Size', 'string', 1],
    ]);
    // Age aside (it is relative to now).
    const cells = (t: Json) =>
      t.rows.filter((r: Json) => r.cells[0].startsWith('t-')).map((r: Json) => [...r.cells.slice(0, 3), r.cells[4]]);
    expect(cells(crd.body)).toEqual([
      ['t-1', 2, 'green', 's'],
      ['t-2', 2, 'green', 's'],
    ]);
    expect(cells(native.body)).toEqual(cells(crd.body));
  });

  it('discovery: the same entries (short names, categories, verbs, subresources), legacy and aggregated', async () => {
    const [crd, native] = await both('GET', `/apis/${GROUP}/v1`);
    expect(crd.body).toEqual(native.body);
    const gizmos = crd.body.resources.find((r: Json) => r.name === 'gizmos');
    expect(gizmos).toMatchObject({
      shortNames: ['gz'],
      categories: ['all', 'gadgets'],
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    });
    expect(crd.body.resources.map((r: Json) => r.name).sort()).toEqual(['gizmos', 'gizmos/scale', 'gizmos/status']);
    const accept = { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
    const [crdAggregated, nativeAggregated] = await both('GET', '/apis', undefined, accept);
    const group = (list: Json) => list.items.find((g: Json) => g.metadata.name === GROUP);
    expect(group(crdAggregated.body)).toEqual(group(nativeAggregated.body));
  });

  it('field selectors: the selectable field filters the same, and an unknown one is refused in the same words', async () => {
    for (const [name, color] of [
      ['f-red', 'red'],
      ['f-blue', 'blue'],
    ] as const)
      await both('POST', GIZMOS, gizmo(name, { color }));
    const [crd, native] = await both('GET', `${GIZMOS}?fieldSelector=${encodeURIComponent('spec.color=blue')}`);
    const names = (l: Json) => l.items.map((o: Json) => o.metadata.name).filter((n: string) => n.startsWith('f-'));
    expect(names(crd.body)).toEqual(['f-blue']);
    expect(names(native.body)).toEqual(['f-blue']);
    const [bad, badNative] = await both('GET', `${GIZMOS}?fieldSelector=${encodeURIComponent('spec.size=s')}`);
    expect(bad.body).toEqual(badNative.body);
    expect(bad.body).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: '"spec.size" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.color"',
    });
  });

  it('status and scale subresources: the same writes and reads', async () => {
    await both('POST', GIZMOS, gizmo('s-1', { replicas: 2 }));
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const patch = (path: string, body: Json) => both('PATCH', path, body, merge);
    // /status writes status only; the main resource's write of status is dropped.
    const [status, statusNative] = await patch(`${GIZMOS}/s-1/status`, {
      spec: { replicas: 9 },
      status: { replicas: 2, selector: 'app=g' },
    });
    expect([status.status, statusNative.status]).toEqual([200, 200]);
    expect([status.body.spec.replicas, status.body.status]).toEqual([2, { replicas: 2, selector: 'app=g' }]);
    expect([statusNative.body.spec.replicas, statusNative.body.status]).toEqual([2, { replicas: 2, selector: 'app=g' }]);
    const [main, mainNative] = await patch(`${GIZMOS}/s-1`, { status: { replicas: 7 } });
    expect([main.body.status.replicas, mainNative.body.status.replicas]).toEqual([2, 2]);
    // Scale reads and writes spec.replicas, with the status' replicas and selector.
    const [scale, scaleNative] = await both('PUT', `${GIZMOS}/s-1/scale`, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 's-1', namespace: 'default' },
      spec: { replicas: 4 },
    });
    const view = (s: Json) => [s.status, s.body.kind, s.body.spec, s.body.status];
    expect(view(scale)).toEqual([200, 'Scale', { replicas: 4 }, { replicas: 2, selector: 'app=g' }]);
    expect(view(scaleNative)).toEqual(view(scale));
    const [tooMany, tooManyNative] = await both('PUT', `${GIZMOS}/s-1/scale`, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 's-1', namespace: 'default' },
      spec: { replicas: 11 },
    });
    expect([tooMany.status, tooMany.body.message]).toEqual([tooManyNative.status, tooManyNative.body.message]);
    expect(tooMany.status).toBe(422);
  });

  it('OpenAPI v3: the same schema, without the strategic-merge-patch hints a CRD cannot carry', async () => {
    const [crd, native] = await both('GET', `/openapi/v3/apis/${GROUP}/v1`);
    const name = 'dev.kapi.roundtrip.v1.Gizmo';
    const strip = (js: Json): Json =>
      JSON.parse(JSON.stringify(js), (k, v) =>
        k === 'x-kubernetes-patch-strategy' || k === 'x-kubernetes-patch-merge-key' ? undefined : v,
      );
    const spec = crd.body.components.schemas[name].properties.spec;
    expect(spec).toEqual(strip(native.body.components.schemas[name].properties.spec));
    expect(spec.properties.ports).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
  });
});

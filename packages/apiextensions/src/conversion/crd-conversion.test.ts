import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { defineResource, Namespace, type ResourceDefinition, type ResourceVersion } from '@kapi/registry';
import { GenericAPIServer, type Listening, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTestCA } from '../../../authn/src/test-support/test-ca.ts';
import { EventStream } from '../../../server-core/src/test-support/event-stream.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { structuralVersionSchema } from '../structural-version-schema.ts';
import type { ConversionReview } from './conversion-review.ts';
import { crdConversion } from './crd-conversion.ts';

/**
 * A custom resource in two versions served by a real GenericAPIServer, converted by a real HTTPS conversion webhook
 * (a certificate of a CA made here, trusted through the CRD's caBundle): v1 (storage) has spec.host and spec.port,
 * v2 has spec.address "host:port". Every verb in either version; the webhook's failures as kube reports them.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;
const GROUP = 'example.kapi.dev';
const status: JSONSchemaProps = { type: 'object', properties: { ready: { type: 'boolean' } } };
const schemaOf = (spec: JSONSchemaProps): JSONSchemaProps => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec, status },
});
const v1Schema = schemaOf({
  type: 'object',
  required: ['host'],
  properties: { host: { type: 'string' }, port: { type: 'integer', default: 80 } },
});
const v2Schema = schemaOf({ type: 'object', required: ['address'], properties: { address: { type: 'string' } } });

/** The webhook's conversion of one object. */
function convertBackend(o: Json, to: string): Json {
  const spec = { ...o.spec };
  if (to === `${GROUP}/v2` && 'host' in spec) {
    spec.address = `${spec.host}:${spec.port}`;
    delete spec.host;
    delete spec.port;
  } else if (to === `${GROUP}/v1` && 'address' in spec) {
    const [host, port] = String(spec.address).split(':');
    spec.host = host;
    spec.port = Number(port);
    delete spec.address;
  }
  return { ...o, apiVersion: to, spec };
}

type Mode = 'ok' | 'wrong uid' | 'failed';
let mode: Mode = 'ok';
const reviews: ConversionReview[] = [];
let webhook: Server;
let webhookURL: string;
let server: GenericAPIServer;
let http: Listening;
let base: string;

beforeAll(async () => {
  const ca = await makeTestCA('backend-conversion-ca');
  const serving = await ca.issue('CN=backend-converter', 'server');
  webhook = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as ConversionReview;
      reviews.push(review);
      const request = review.request;
      const uid = mode === 'wrong uid' ? 'not-the-uid' : request?.uid;
      const response =
        mode === 'failed'
          ? { uid, result: { status: 'Failure', message: 'port 80 is not allowed in v2' } }
          : {
              uid,
              result: { status: 'Success' },
              convertedObjects: request?.objects.map((o) => convertBackend(o, request.desiredAPIVersion)),
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  webhookURL = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/convert`;

  const crd = {
    metadata: { name: `backends.${GROUP}` },
    spec: {
      group: GROUP,
      versions: [{ name: 'v1' }, { name: 'v2' }],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: webhookURL, caBundle: Buffer.from(ca.pem).toString('base64') },
          conversionReviewVersions: ['v1'],
        },
      },
    },
  };
  // Built as a CRD's definition is: a defineResource shell whose versions serve the structural schemas.
  const shell = defineResource({
    group: GROUP,
    kind: 'Backend',
    plural: 'backends',
    namespaced: true,
    subresources: { status: true },
    versions: [
      { name: 'v1', storage: true, schema: z.object({}) },
      { name: 'v2', schema: z.object({}) },
    ],
    conversion: crdConversion(crd),
  });
  const [s1, s2] = shell.versions as [ResourceVersion, ResourceVersion];
  const v1: ResourceVersion = { ...s1, schema: structuralVersionSchema(v1Schema) };
  const v2: ResourceVersion = { ...s2, schema: structuralVersionSchema(v2Schema) };
  const def: ResourceDefinition = {
    ...shell,
    versions: [v1, v2],
    storageVersion: v1,
    version: (n) => (n === 'v1' ? v1 : n === 'v2' ? v2 : undefined),
  };
  server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace] });
  await server.start();
  await server.addResource(def);
  http = await listen(server.handler);
  base = `${http.url}/apis/${GROUP}`;
});

afterAll(async () => {
  await http.close();
  await server.shutdown();
  webhook.closeAllConnections();
  await new Promise((r) => webhook.close(r));
});

beforeEach(() => {
  mode = 'ok';
  reviews.length = 0;
});

const url = (version: string, name = '', sub = '') => `${base}/${version}/namespaces/default/backends${name ? `/${name}` : ''}${sub}`;
const send = async (method: string, u: string, body?: unknown, type = 'application/json'): Promise<{ code: number; body: Json }> => {
  const res = await fetch(u, { method, headers: { 'content-type': type }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { code: res.status, body: await res.json() };
};
const backend = (version: string, name: string, spec: Json): Json => ({
  apiVersion: `${GROUP}/${version}`,
  kind: 'Backend',
  metadata: { name },
  spec,
});

describe('a custom resource converted by an HTTPS conversion webhook (crdConversion), every verb', () => {
  it('creates in v1 and reads in v2, creates in v2 and reads in v1', async () => {
    const a = await send('POST', url('v1'), backend('v1', 'a', { host: 'a.example', port: 8080 }));
    expect(a.code).toBe(201);
    expect(a.body).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { host: 'a.example', port: 8080 } });
    const got = await send('GET', url('v2', 'a'));
    expect(got.body).toMatchObject({ apiVersion: `${GROUP}/v2`, kind: 'Backend', spec: { address: 'a.example:8080' } });
    expect(got.body.metadata.uid).toBe(a.body.metadata.uid);

    const b = await send('POST', url('v2'), backend('v2', 'b', { address: 'b.example:9090' }));
    expect(b.code).toBe(201);
    expect(b.body).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { address: 'b.example:9090' } });
    expect((await send('GET', url('v1', 'b'))).body).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { host: 'b.example', port: 9090 } });
    // Every review was a ConversionReview v1 to the CRD's URL.
    expect(reviews.every((r) => r.apiVersion === 'apiextensions.k8s.io/v1')).toBe(true);
  });

  it('lists in v2 with one review for the whole page', async () => {
    const list = await send('GET', url('v2'));
    expect(list.body.apiVersion).toBe(`${GROUP}/v2`);
    expect(list.body.items.map((o: Json) => [o.metadata.name, o.apiVersion, o.spec.address])).toEqual([
      ['a', `${GROUP}/v2`, 'a.example:8080'],
      ['b', `${GROUP}/v2`, 'b.example:9090'],
    ]);
    expect(reviews.map((r) => [r.request?.desiredAPIVersion, r.request?.objects.length])).toEqual([[`${GROUP}/v2`, 2]]);
    // The storage version needs no webhook.
    reviews.length = 0;
    expect((await send('GET', url('v1'))).body.items.map((o: Json) => o.spec.host)).toEqual(['a.example', 'b.example']);
    expect(reviews).toEqual([]);
  });

  it('answers Tables whose rows carry objects in v2 (includeObject=Object), a list in one review, and Table watches', async () => {
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const res = await fetch(`${url('v2')}?includeObject=Object`, { headers: accept });
    const table = (await res.json()) as Json;
    expect(table.kind).toBe('Table');
    expect(table.rows.map((r: Json) => [r.cells[0], r.object.apiVersion, r.object.spec.address])).toEqual([
      ['a', `${GROUP}/v2`, 'a.example:8080'],
      ['b', `${GROUP}/v2`, 'b.example:9090'],
    ]);
    expect(reviews.map((r) => r.request?.objects.length)).toEqual([2]);
    // Without objects in the rows, no conversion at all.
    reviews.length = 0;
    await (await fetch(url('v2'), { headers: accept })).json();
    expect(reviews).toEqual([]);

    const stream = await EventStream.open(`${url('v2')}?watch=1&resourceVersion=0&includeObject=Object&timeoutSeconds=5`, accept);
    try {
      const ev = await stream.next();
      expect(ev.type).toBe('ADDED');
      expect(ev.object.rows[0].object).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { address: 'a.example:8080' } });
      expect((await stream.next()).object.rows[0].object.spec).toEqual({ address: 'b.example:9090' });
      mode = 'failed';
      await send('POST', url('v1'), backend('v1', 't', { host: 't.example' }));
      const failed = await stream.next();
      expect(failed).toMatchObject({ type: 'ERROR', object: { code: 500, reason: 'InternalError' } });
      expect(await stream.next()).toBeUndefined();
    } finally {
      stream.close();
      mode = 'ok';
      await send('DELETE', url('v1', 't'));
    }
  });

  it('watches in v2: existing objects and new ones, converted in order', async () => {
    const stream = await EventStream.open(`${url('v2')}?watch=1&resourceVersion=0&timeoutSeconds=5`);
    try {
      const first = [await stream.next(), await stream.next()];
      expect(first.map((e) => [e.type, e.object.metadata.name, e.object.spec.address])).toEqual([
        ['ADDED', 'a', 'a.example:8080'],
        ['ADDED', 'b', 'b.example:9090'],
      ]);
      await send('POST', url('v1'), backend('v1', 'c', { host: 'c.example' }));
      await send('DELETE', url('v1', 'c'));
      const next = [await stream.next(), await stream.next()];
      expect(next.map((e) => [e.type, e.object.apiVersion, e.object.spec.address])).toEqual([
        ['ADDED', `${GROUP}/v2`, 'c.example:80'],
        ['DELETED', `${GROUP}/v2`, 'c.example:80'],
      ]);
    } finally {
      stream.close();
    }
  });

  it('updates in v2, merge-patches in v1, updates status in v2 and deletes in v2', async () => {
    const current = (await send('GET', url('v2', 'a'))).body;
    const put = await send('PUT', url('v2', 'a'), { ...current, spec: { address: 'a2.example:81' } });
    expect(put.code).toBe(200);
    expect(put.body).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { address: 'a2.example:81' } });
    expect((await send('GET', url('v1', 'a'))).body.spec).toEqual({ host: 'a2.example', port: 81 });

    const patched = await send('PATCH', url('v1', 'a'), { spec: { port: 82 } }, 'application/merge-patch+json');
    expect(patched.code).toBe(200);
    expect(patched.body).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { host: 'a2.example', port: 82 } });
    const v2 = (await send('GET', url('v2', 'a'))).body;
    expect(v2.spec).toEqual({ address: 'a2.example:82' });

    const st = await send('PUT', url('v2', 'a', '/status'), { ...v2, status: { ready: true } });
    expect(st.code).toBe(200);
    expect(st.body).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { address: 'a2.example:82' }, status: { ready: true } });
    expect((await send('GET', url('v1', 'a'))).body.status).toEqual({ ready: true });

    const del = await send('DELETE', url('v2', 'a'));
    expect(del.code).toBe(200);
    expect(del.body).toMatchObject({ apiVersion: `${GROUP}/v2`, metadata: { name: 'a' }, spec: { address: 'a2.example:82' } });
    expect((await send('GET', url('v1', 'a'))).code).toBe(404);
  });

  it("answers a webhook's wrong uid and failed result with kube's messages, storing nothing", async () => {
    mode = 'wrong uid';
    const wrong = await send('GET', url('v2', 'b'));
    expect(wrong.code).toBe(500);
    const uid = reviews[0]?.request?.uid;
    expect(wrong.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      message: `conversion for ${GROUP}/v1, Kind=Backend failed: conversion webhook for /, Kind= failed: expected response.uid="${uid}", got "not-the-uid"`,
    });
    // kube's handlers write the converter's plain error as a 500 without a reason.
    expect(wrong.body.reason).toBeUndefined();
    const listed = await send('GET', url('v2'));
    expect(listed.code).toBe(500);
    expect(listed.body.message).toContain(`conversion webhook for ${GROUP}/v1, Kind=BackendList failed: expected response.uid=`);

    mode = 'failed';
    const created = await send('POST', url('v2'), backend('v2', 'd', { address: 'd.example:80' }));
    expect(created.code).toBe(500);
    expect(created.body.message).toBe(
      `conversion for ${GROUP}/v2, Kind=Backend failed: conversion webhook for /, Kind= failed: port 80 is not allowed in v2`,
    );
    const patched = await send('PATCH', url('v2', 'b'), { spec: { address: 'b.example:1' } }, 'application/merge-patch+json');
    expect(patched.code).toBe(500);
    mode = 'ok';
    expect((await send('GET', url('v1'))).body.items.map((o: Json) => [o.metadata.name, o.spec.port])).toEqual([['b', 9090]]);
  });

  it('ends a watch in v2 with an ERROR event when an event fails to convert', async () => {
    const stream = await EventStream.open(`${url('v2')}?watch=1&timeoutSeconds=5`);
    try {
      mode = 'failed';
      await send('POST', url('v1'), backend('v1', 'e', { host: 'e.example' }));
      const ev = await stream.next();
      expect(ev).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 500, reason: 'InternalError' } });
      // kube's watch wraps the converter's plain error as an InternalError.
      expect(ev.object.message).toBe(
        `Internal error occurred: conversion for ${GROUP}/v1, Kind=Backend failed: conversion webhook for /, Kind= failed: port 80 is not allowed in v2`,
      );
      expect(await stream.next()).toBeUndefined();
    } finally {
      stream.close();
      mode = 'ok';
      await send('DELETE', url('v1', 'e'));
    }
  });

  it("answers with kube's 500 when the webhook is stopped, and a create then stores nothing", async () => {
    webhook.closeAllConnections();
    await new Promise((r) => webhook.close(r));
    const port = new URL(webhookURL).port;
    const got = await send('GET', url('v2', 'b'));
    expect(got.code).toBe(500);
    expect(got.body).toMatchObject({
      kind: 'Status',
      message: `conversion for ${GROUP}/v1, Kind=Backend failed: conversion webhook for /, Kind= failed: Post "${webhookURL}": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
    const created = await send('POST', url('v2'), backend('v2', 'f', { address: 'f.example:80' }));
    expect(created.code).toBe(500);
    expect((await send('GET', url('v1'))).body.items.map((o: Json) => o.metadata.name)).toEqual(['b']);
    // Reads in the storage version do not need the webhook.
    expect((await send('GET', url('v1', 'b'))).code).toBe(200);
  });
});

describe('crdConversion with strategy None', () => {
  const none = crdConversion({
    metadata: { name: `backends.${GROUP}` },
    spec: { group: GROUP, versions: [{ name: 'v1' }, { name: 'v2' }] },
  });

  it('changes only apiVersion, for a list and for one object, leaving its input as it was', async () => {
    const a = { ...backend('v1', 'a', { host: 'a.example', port: 1 }), metadata: { name: 'a', namespace: 'default', uid: 'u' } };
    const input = [a, backend('v2', 'b', { address: 'b:2' })];
    const before = structuredClone(input);
    expect(await none.convert(input, 'v2', true)).toEqual([{ ...a, apiVersion: `${GROUP}/v2` }, input[1]]);
    expect(await none.convert([a], 'v2', false)).toEqual([{ ...a, apiVersion: `${GROUP}/v2` }]);
    expect(input).toEqual(before);
  });

  it("refuses a version the CRD lacks with kube's message", async () => {
    await expect(none.convert([backend('v1', 'a', {})], 'v3', false)).rejects.toThrow(
      `request to convert CR to an invalid group/version: ${GROUP}/v3`,
    );
  });

  it('throws for an unknown strategy', () => {
    expect(() =>
      crdConversion({ metadata: { name: 'x' }, spec: { group: GROUP, versions: [{ name: 'v1' }], conversion: { strategy: 'Magic' } } }),
    ).toThrow('unknown conversion strategy "Magic" for CRD x');
  });
});

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { FakeClock, type KubeObject } from '@kapi/apimachinery';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTestCA, type TestCA } from '../../../authn/src/test-support/test-ca.ts';
import type { ConversionReview } from './conversion-review.ts';
import { type ConversionCRD, converterForCRD } from './converter-factory.ts';
import type { DelegatingConverter } from './delegating-converter.ts';
import { ErrCallingWebhook } from './hook-client.ts';

/**
 * A real HTTPS conversion webhook (a certificate of a CA made here) between example.kapi.dev v1 (spec.colour) and v2
 * (spec.color); `answer` lets a test replace the answer to break one rule at a time.
 */
type Answer = (review: ConversionReview, converted: KubeObject[]) => { status?: number; type?: string; body: unknown };

function convertPaint(o: KubeObject, to: string): KubeObject {
  const spec = { ...(o as { spec?: Record<string, unknown> }).spec };
  if (to.endsWith('/v2') && 'colour' in spec) {
    spec.color = spec.colour;
    delete spec.colour;
  } else if (to.endsWith('/v1') && 'color' in spec) {
    spec.colour = spec.color;
    delete spec.color;
  }
  return { ...o, apiVersion: to, spec } as KubeObject;
}

const ok: Answer = (review, converted) => ({
  body: {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid: review.request?.uid, convertedObjects: converted, result: { status: 'Success' } },
  },
});

let ca: TestCA;
let server: Server;
let port: number;
let answer: Answer = ok;
const received: { path: string; host: string; review: ConversionReview }[] = [];

beforeAll(async () => {
  ca = await makeTestCA('conversion-test-ca');
  const serving = await ca.issue('CN=paint-converter', 'server', ['converter.paint.svc']);
  server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as ConversionReview;
      received.push({ path: req.url ?? '', host: req.headers.host ?? '', review });
      const request = review.request;
      const converted = (request?.objects ?? []).map((o) => convertPaint(o, request?.desiredAPIVersion ?? ''));
      const { status = 200, type = 'application/json', body } = answer(review, converted);
      if (body === 'hang') return; // never answers
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  answer = ok;
  received.length = 0;
});

function crd(webhook: Partial<NonNullable<ConversionCRD['spec']['conversion']>['webhook']> = {}): ConversionCRD {
  return {
    metadata: { name: 'paints.example.kapi.dev' },
    spec: {
      group: 'example.kapi.dev',
      versions: [{ name: 'v1' }, { name: 'v2' }],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(ca.pem).toString('base64') },
          conversionReviewVersions: ['v1'],
          ...webhook,
        },
      },
    },
  };
}

function paint(name: string, apiVersion = 'example.kapi.dev/v1', extra: Record<string, unknown> = {}): KubeObject {
  const field = apiVersion.endsWith('/v1') ? 'colour' : 'color';
  return {
    apiVersion,
    kind: 'Paint',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', labels: { shade: 'dark' } },
    spec: { [field]: 'red' },
    ...extra,
  } as KubeObject;
}

/** Runs `fn` with a converter for `c` (uid pinned to "u-1"), closing its connections after. */
async function withConverter<T>(c: ConversionCRD, fn: (conv: DelegatingConverter) => Promise<T>, timeoutMs?: number): Promise<T> {
  const { converter, close } = converterForCRD(c, { uid: () => 'u-1', ...(timeoutMs ? { timeoutMs } : {}) });
  try {
    return await fn(converter);
  } finally {
    close();
  }
}

describe('conversion webhook (ConversionReview over HTTPS, verified with caBundle)', () => {
  it('converts an object from v1 to v2 and back, renaming spec.colour to spec.color', async () => {
    await withConverter(crd(), async (conv) => {
      const original = paint('a');
      const v2 = await conv.convertObject(original, 'example.kapi.dev/v2');
      expect(v2).toEqual({ ...original, apiVersion: 'example.kapi.dev/v2', spec: { color: 'red' } });
      expect(original.apiVersion).toBe('example.kapi.dev/v1');
      expect(received[0]?.path).toBe('/convert');
      expect(received[0]?.review).toEqual({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'u-1', desiredAPIVersion: 'example.kapi.dev/v2', objects: [original] },
      });
      expect(await conv.convertObject(v2, 'example.kapi.dev/v1')).toEqual(original);
    });
  });

  it('sends a list only the items not in the wanted version, and puts the answers back in place', async () => {
    await withConverter(crd(), async (conv) => {
      const list = {
        apiVersion: 'example.kapi.dev/v1',
        kind: 'PaintList',
        metadata: { resourceVersion: '9' },
        items: [paint('a'), paint('b', 'example.kapi.dev/v2'), paint('c')],
      };
      const out = await conv.convertList(list, 'example.kapi.dev/v2');
      expect(out.apiVersion).toBe('example.kapi.dev/v2');
      expect(out.metadata).toEqual({ resourceVersion: '9' });
      expect(out.items.map((o) => [o.metadata.name, o.apiVersion, (o as { spec?: unknown }).spec])).toEqual([
        ['a', 'example.kapi.dev/v2', { color: 'red' }],
        ['b', 'example.kapi.dev/v2', { color: 'red' }],
        ['c', 'example.kapi.dev/v2', { color: 'red' }],
      ]);
      expect(received[0]?.review.request?.objects.map((o) => o.metadata.name)).toEqual(['a', 'c']);
      // Nothing to convert: no call, the list's apiVersion still changes.
      received.length = 0;
      expect((await conv.convertList({ ...list, items: [paint('b', 'example.kapi.dev/v2')] }, 'example.kapi.dev/v2')).apiVersion).toBe(
        'example.kapi.dev/v2',
      );
      expect(received).toEqual([]);
    });
  });

  it('keeps the labels and annotations the webhook set, and restores every other metadata field', async () => {
    answer = (review, converted) =>
      ok(
        review,
        converted.map((o) => ({
          ...o,
          metadata: { ...o.metadata, resourceVersion: '99', generation: 5, labels: { shade: 'light' }, annotations: { by: 'webhook' } },
        })),
      );
    await withConverter(crd(), async (conv) => {
      const v2 = await conv.convertObject(paint('a'), 'example.kapi.dev/v2');
      expect(v2.metadata).toEqual({
        name: 'a',
        namespace: 'default',
        uid: 'uid-a',
        resourceVersion: '7',
        labels: { shade: 'light' },
        annotations: { by: 'webhook' },
      });
    });
  });

  it('speaks v1beta1 when the CRD lists it first, and then checks neither the answer kind version nor the uid', async () => {
    answer = (_review, converted) => ({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1beta1',
        kind: 'ConversionReview',
        response: { uid: 'whatever', convertedObjects: converted, result: { status: 'Success' } },
      },
    });
    await withConverter(crd({ conversionReviewVersions: ['v1beta2', 'v1beta1', 'v1'] }), async (conv) => {
      expect((await conv.convertObject(paint('a'), 'example.kapi.dev/v2')).apiVersion).toBe('example.kapi.dev/v2');
      expect(received[0]?.review.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
    });
  });

  it('reaches a Service through the service resolver, verifying the certificate as <name>.<namespace>.svc', async () => {
    const c = crd();
    const webhook = c.spec.conversion?.webhook;
    if (!webhook) throw new Error('no webhook');
    webhook.clientConfig = {
      service: { namespace: 'paint', name: 'converter', path: '/convert/paint', port: 8443 },
      caBundle: webhook.clientConfig.caBundle,
    };
    const asked: unknown[] = [];
    const { converter, close } = converterForCRD(c, {
      serviceResolver: (namespace, name, p) => {
        asked.push([namespace, name, p]);
        return `https://127.0.0.1:${port}`;
      },
    });
    try {
      expect((await converter.convertObject(paint('a'), 'example.kapi.dev/v2')).apiVersion).toBe('example.kapi.dev/v2');
    } finally {
      close();
    }
    expect(asked).toEqual([['paint', 'converter', 8443]]);
    expect(received[0]).toMatchObject({ path: '/convert/paint', host: 'converter.paint.svc:8443' });
    // The certificate is checked against the Service's name, not the address it was dialled at.
    webhook.clientConfig = { ...webhook.clientConfig, service: { namespace: 'paint', name: 'mixer', path: '/convert/paint', port: 8443 } };
    const mixer = converterForCRD(c, { serviceResolver: () => `https://127.0.0.1:${port}` });
    try {
      await expect(mixer.converter.convertObject(paint('a'), 'example.kapi.dev/v2')).rejects.toThrow(
        new Error(
          `conversion for example.kapi.dev/v1, Kind=Paint failed: conversion webhook for /, Kind= failed: Post "https://mixer.paint.svc:8443/convert/paint": tls: failed to verify certificate: x509: certificate is valid for converter.paint.svc, not mixer.paint.svc`,
        ),
      );
    } finally {
      mixer.close();
    }
  });

  it('None only rewrites apiVersion; an object of nothing but apiVersion and kind never reaches the webhook', async () => {
    const none = { ...crd(), spec: { ...crd().spec, conversion: { strategy: 'None' } } };
    await withConverter(none, async (conv) => {
      expect(await conv.convertObject(paint('a'), 'example.kapi.dev/v2')).toEqual({ ...paint('a'), apiVersion: 'example.kapi.dev/v2' });
    });
    await withConverter(crd(), async (conv) => {
      expect(await conv.convertObject({ apiVersion: 'example.kapi.dev/v1', kind: 'Paint' } as KubeObject, 'example.kapi.dev/v2')).toEqual({
        apiVersion: 'example.kapi.dev/v2',
        kind: 'Paint',
      });
      expect(received).toEqual([]);
    });
  });

  const GVK = 'example.kapi.dev/v1, Kind=Paint';
  const WEBHOOK = `conversion for ${GVK} failed: conversion webhook for /, Kind= failed:`;
  const review = (response: unknown, apiVersion = 'apiextensions.k8s.io/v1') => ({
    body: { apiVersion, kind: 'ConversionReview', response },
  });
  const cases: [string, Answer, string][] = [
    [
      'another uid',
      (_r, c) => review({ uid: 'other', convertedObjects: c, result: { status: 'Success' } }),
      `${WEBHOOK} expected response.uid="u-1", got "other"`,
    ],
    [
      'a failure with a message',
      () => review({ uid: 'u-1', result: { status: 'Failure', message: 'colour unknown' } }),
      `${WEBHOOK} colour unknown`,
    ],
    [
      'a failure without a message',
      () => review({ uid: 'u-1', result: { status: 'Failure' } }),
      `${WEBHOOK} response.result.status was 'Failure', not 'Success'`,
    ],
    [
      'a v1beta1 answer to a v1 review',
      (_r, c) => review({ uid: 'u-1', convertedObjects: c, result: { status: 'Success' } }, 'apiextensions.k8s.io/v1beta1'),
      `${WEBHOOK} expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`,
    ],
    [
      'no response',
      () => ({ body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' } }),
      `${WEBHOOK} no response provided`,
    ],
    ['no kind', () => ({ body: { response: {} } }), `${WEBHOOK} Object 'Kind' is missing in '{"response":{}}'`],
    [
      'a body that is not JSON',
      () => ({ body: 'converted!' }),
      `${WEBHOOK} couldn't get version/kind; json parse error: Unexpected token 'c', "converted!" is not valid JSON`,
    ],
    [
      'a 500 in plain text',
      () => ({ status: 500, type: 'text/plain', body: 'boom\n' }),
      `${WEBHOOK} an error on the server ("boom") has prevented the request from succeeding`,
    ],
    ['a 404', () => ({ status: 404, body: { nothing: true } }), `${WEBHOOK} the server could not find the requested resource`],
    [
      'a Status error',
      () => ({
        status: 403,
        body: { apiVersion: 'v1', kind: 'Status', status: 'Failure', message: 'converter is not allowed', code: 403 },
      }),
      `${WEBHOOK} converter is not allowed`,
    ],
    [
      'too few objects',
      (_r) => review({ uid: 'u-1', convertedObjects: [], result: { status: 'Success' } }),
      `conversion for ${GVK} returned 0 objects, expected 1`,
    ],
    [
      'an object that is not an object',
      (_r) => review({ uid: 'u-1', convertedObjects: ['x'], result: { status: 'Success' } }),
      `conversion for ${GVK} failed: json: cannot unmarshal string into Go value of type map[string]interface {}`,
    ],
    [
      'the old version',
      (_r, c) =>
        review({
          uid: 'u-1',
          convertedObjects: c.map((o) => ({ ...o, apiVersion: 'example.kapi.dev/v1' })),
          result: { status: 'Success' },
        }),
      `conversion for ${GVK} returned invalid converted object at index 1: invalid groupVersion (expected example.kapi.dev/v2, received example.kapi.dev/v1)`,
    ],
    [
      'another kind',
      (_r, c) => review({ uid: 'u-1', convertedObjects: c.map((o) => ({ ...o, kind: 'Ink' })), result: { status: 'Success' } }),
      `conversion for ${GVK} returned invalid converted object at index 1: invalid kind (expected Paint, received Ink)`,
    ],
    [
      'another name',
      (_r, c) =>
        review({
          uid: 'u-1',
          convertedObjects: c.map((o) => ({ ...o, metadata: { ...o.metadata, name: 'b' } })),
          result: { status: 'Success' },
        }),
      `conversion for ${GVK} returned invalid converted object at index 1: must have the same name: a != b`,
    ],
    [
      'another uid in metadata',
      (_r, c) =>
        review({
          uid: 'u-1',
          convertedObjects: c.map((o) => ({ ...o, metadata: { ...o.metadata, uid: 'x' } })),
          result: { status: 'Success' },
        }),
      `conversion for ${GVK} returned invalid converted object at index 1: must have the same UID: uid-a != x`,
    ],
    [
      'no metadata',
      (_r, c) => review({ uid: 'u-1', convertedObjects: c.map(({ metadata: _, ...o }) => o), result: { status: 'Success' } }),
      `conversion for ${GVK} returned invalid converted object at index 1: must have the same name: a != `,
    ],
    [
      'metadata of another type',
      (_r, c) => review({ uid: 'u-1', convertedObjects: c.map((o) => ({ ...o, metadata: 'm' })), result: { status: 'Success' } }),
      `conversion for ${GVK} returned invalid converted object at index 1: must have the same name: a != `,
    ],
    [
      'a label that is not a string',
      (_r, c) =>
        review({
          uid: 'u-1',
          convertedObjects: c.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { n: 1 } } })),
          result: { status: 'Success' },
        }),
      `conversion for ${GVK} returned invalid metadata in object at index 1: metadata.labels[n] must be a string, but is int64 in converted object`,
    ],
    [
      'labels that are not a map',
      (_r, c) =>
        review({
          uid: 'u-1',
          convertedObjects: c.map((o) => ({ ...o, metadata: { ...o.metadata, labels: ['x'] } })),
          result: { status: 'Success' },
        }),
      `conversion for ${GVK} returned invalid metadata in object at index 1: invalid metadata.labels of type []interface {} in converted object`,
    ],
    [
      'an invalid label value',
      (_r, c) =>
        review({
          uid: 'u-1',
          convertedObjects: c.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { shade: '-dark' } } })),
          result: { status: 'Success' },
        }),
      `conversion for ${GVK} returned invalid metadata in object at index 1: metadata.labels: Invalid value: "-dark": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
    [
      'an invalid annotation key',
      (_r, c) =>
        review({
          uid: 'u-1',
          convertedObjects: c.map((o) => ({ ...o, metadata: { ...o.metadata, annotations: { 'a b': 'x' } } })),
          result: { status: 'Success' },
        }),
      `conversion for ${GVK} returned invalid metadata in object at index 1: metadata.annotation: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  ];

  it.each(cases)('refuses an answer with %s, in kube’s words', async (_what, bad, message) => {
    answer = bad;
    await withConverter(crd(), async (conv) => {
      await expect(conv.convertObject(paint('a'), 'example.kapi.dev/v2')).rejects.toThrow(new Error(message));
    });
  });

  it('names the list and counts only the items sent in a list’s errors', async () => {
    answer = (_r, c) =>
      review({ uid: 'u-1', convertedObjects: c.map((o, i) => (i === 1 ? { ...o, kind: 'Ink' } : o)), result: { status: 'Success' } });
    await withConverter(crd(), async (conv) => {
      const list = {
        apiVersion: 'example.kapi.dev/v1',
        kind: 'PaintList',
        items: [paint('a'), paint('b', 'example.kapi.dev/v2'), paint('c')],
      };
      await expect(conv.convertList(list, 'example.kapi.dev/v2')).rejects.toThrow(
        new Error(
          'conversion for example.kapi.dev/v1, Kind=PaintList returned invalid converted object at index 2: invalid kind (expected Paint, received Ink)',
        ),
      );
      answer = () => ({ status: 500, type: 'text/plain', body: 'boom' });
      await expect(conv.convertList(list, 'example.kapi.dev/v2')).rejects.toThrow(
        new Error(
          'conversion for example.kapi.dev/v1, Kind=PaintList failed: conversion webhook for example.kapi.dev/v1, Kind=PaintList failed: an error on the server ("boom") has prevented the request from succeeding',
        ),
      );
    });
  });

  it('refuses versions the CRD does not have, before calling anyone', async () => {
    await withConverter(crd(), async (conv) => {
      await expect(conv.convertObject(paint('a'), 'example.kapi.dev/v3')).rejects.toThrow(
        new Error('request to convert CR to an invalid group/version: example.kapi.dev/v3'),
      );
      await expect(conv.convertObject(paint('a', 'other.io/v1'), 'example.kapi.dev/v2')).rejects.toThrow(
        new Error('request to convert CR from an invalid group/version: other.io/v1'),
      );
      const list = { apiVersion: 'example.kapi.dev/v1', kind: 'PaintList', items: [paint('a'), paint('b', 'example.kapi.dev/v9')] };
      await expect(conv.convertList(list, 'example.kapi.dev/v2')).rejects.toThrow(
        new Error('request to convert CR list failed, list index 1 has invalid group/version: example.kapi.dev/v9'),
      );
    });
    expect(received).toEqual([]);
  });

  it('times a hung webhook out on the clock it is given: a FakeClock, when advanced', async () => {
    answer = () => ({ body: 'hang' });
    const clock = new FakeClock();
    const { converter, close } = converterForCRD(crd(), { uid: () => 'u-1', timeoutMs: 30_000, clock });
    try {
      let settled: unknown;
      const call = converter.convertObject(paint('a'), 'example.kapi.dev/v2').then(
        () => (settled = 'converted'),
        (err: unknown) => (settled = err),
      );
      while (received.length === 0) await new Promise((r) => setTimeout(r, 1));
      clock.advance(29_999);
      await new Promise((r) => setImmediate(r));
      expect(settled).toBeUndefined();
      clock.advance(1);
      await call;
      expect(settled).toEqual(new Error(`${WEBHOOK} Post "https://127.0.0.1:${port}/convert": context deadline exceeded`));
    } finally {
      close();
    }
  });

  it('fails a webhook it cannot trust, reach or hear from in time, and a CRD it cannot use', async () => {
    const other = await makeTestCA('another-ca');
    await withConverter(
      crd({ clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(other.pem).toString('base64') } }),
      async (conv) => {
        await expect(conv.convertObject(paint('a'), 'example.kapi.dev/v2')).rejects.toThrow(
          new Error(
            `${WEBHOOK} Post "https://127.0.0.1:${port}/convert": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
          ),
        );
      },
    );
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await withConverter(crd({ clientConfig: { url: `https://127.0.0.1:${closedPort}/convert` } }), async (conv) => {
      await expect(conv.convertObject(paint('a'), 'example.kapi.dev/v2')).rejects.toThrow(
        new Error(
          `${WEBHOOK} Post "https://127.0.0.1:${closedPort}/convert": dial tcp 127.0.0.1:${closedPort}: connect: connection refused`,
        ),
      );
    });
    answer = () => ({ body: 'hang' });
    await withConverter(
      crd(),
      async (conv) => {
        await expect(conv.convertObject(paint('a'), 'example.kapi.dev/v2')).rejects.toThrow(
          new Error(`${WEBHOOK} Post "https://127.0.0.1:${port}/convert": context deadline exceeded`),
        );
      },
      200,
    );
    await withConverter(crd({ conversionReviewVersions: ['v2'] }), async (conv) => {
      await expect(conv.convertObject(paint('a'), 'example.kapi.dev/v2')).rejects.toThrow(
        new Error(`conversion for ${GVK} failed: no supported conversion review versions`),
      );
    });
    expect(() => converterForCRD(crd({ clientConfig: {} }))).toThrow(
      new ErrCallingWebhook('conversion_webhook_for_paints.example.kapi.dev', 'webhook configuration must have either service or URL'),
    );
    expect(() => converterForCRD({ ...crd(), spec: { ...crd().spec, conversion: { strategy: 'Magic' } } })).toThrow(
      new Error('unknown conversion strategy "Magic" for CRD paints.example.kapi.dev'),
    );
  });
});

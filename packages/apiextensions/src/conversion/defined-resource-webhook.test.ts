import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '@kapi/apimachinery';
import { answerConversionReview, customResourceDefinitionOf, defineResource } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTestCA } from '../../../authn/src/test-support/test-ca.ts';
import { converterForCRD } from './converter-factory.ts';

type Obj = { spec: Record<string, unknown> };
const rename = (from: string, to: string) => (o: unknown) => {
  const { [from]: value, ...rest } = (o as Obj).spec;
  return { ...(o as object), spec: { ...rest, [to]: value } } as never;
};
const Paint = defineResource({
  group: 'example.kapi.dev',
  kind: 'Paint',
  plural: 'paints',
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z.object({ spec: z.object({ colour: z.string() }) }),
      toHub: rename('colour', 'color'),
      fromHub: rename('color', 'colour'),
    },
    { name: 'v2', storage: true, schema: z.object({ spec: z.object({ color: z.string() }) }) },
  ],
});

describe('a defineResource kind with TypeScript converters, installed as a CRD with a conversion webhook', () => {
  it("converts through an HTTPS webhook that answers with the kind's own converters, read from the kind's manifest", async () => {
    const ca = await makeTestCA('paint-ca');
    const serving = await ca.issue('CN=paint-webhook', 'server');
    const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answerConversionReview(Paint, JSON.parse(Buffer.concat(chunks).toString()))));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/convert`;
    const manifest = customResourceDefinitionOf(Paint, {
      conversion: { webhook: { url, caBundle: Buffer.from(ca.pem).toString('base64') } },
    });
    const { converter, close } = converterForCRD(manifest);
    try {
      const v1 = {
        apiVersion: 'example.kapi.dev/v1',
        kind: 'Paint',
        metadata: { name: 'a', namespace: 'default', uid: 'u', resourceVersion: '3' },
        spec: { colour: 'red' },
      } as KubeObject;
      const v2 = await converter.convertObject(v1, 'example.kapi.dev/v2');
      expect(v2).toEqual({ ...v1, apiVersion: 'example.kapi.dev/v2', spec: { color: 'red' } });
      expect(await converter.convertObject(v2, 'example.kapi.dev/v1')).toEqual(v1);
      await expect(converter.convertObject(v1, 'example.kapi.dev/v3')).rejects.toThrow(
        'request to convert CR to an invalid group/version: example.kapi.dev/v3',
      );
    } finally {
      close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

import { defineResource } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { json, testServers } from '../test-support/test-servers.ts';
import { MIME_V2_PROTOBUF } from './handler.ts';
import { OpenAPIV2Document } from './v2-protobuf.ts';

/**
 * OpenAPI v2 and v3 of the proxy subresource, as kube's swagger.json lists pods/proxy and nodes/proxy: `…/{name}/proxy`
 * and `…/{name}/proxy/{path}`, a connect operation per proxy method (connectCoreV1GetNamespacedPodProxy,
 * …WithPath), the subresource's kind naming the `name` parameter, answers of type string.
 */

const start = testServers();
const location = () => ({ url: 'http://127.0.0.1:1' });
const Pod = defineResource({
  group: '',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ spec: z.object({ nodeName: z.string().optional() }).optional() }) }],
  subresources: { proxy: { location, kind: { group: '', version: 'v1', kind: 'PodProxyOptions' } } },
});
const Node = defineResource({
  group: '',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
  versions: [{ name: 'v1', schema: z.object({ spec: z.object({ podCIDR: z.string().optional() }).optional() }) }],
  subresources: { proxy: { location } },
});

const POD = '/api/v1/namespaces/{namespace}/pods/{name}/proxy';
const NODE = '/api/v1/nodes/{name}/proxy';
const METHODS = ['delete', 'get', 'head', 'options', 'patch', 'post', 'put'];
const methodsOf = (item: Record<string, unknown> | undefined): string[] => Object.keys(item ?? {}).filter((k) => k !== 'parameters');
const Title = (m: string): string => m.charAt(0).toUpperCase() + m.slice(1);

describe('OpenAPI of the proxy subresource', () => {
  it('v2: connect operations on …/proxy and …/proxy/{path}, as kube lists pods/proxy', async () => {
    const { url, server } = await start();
    await server.addResource(Pod);
    await server.addResource(Node);
    const doc = await json(await fetch(`${url}/openapi/v2`));
    for (const [path, suffix] of [
      [POD, ''],
      [`${POD}/{path}`, 'WithPath'],
    ] as const) {
      expect(methodsOf(doc.paths[path]).sort()).toEqual(METHODS);
      for (const m of METHODS)
        expect(doc.paths[path][m]).toEqual({
          description: `connect ${m.toUpperCase()} requests to proxy of Pod`,
          consumes: ['*/*'],
          produces: ['*/*'],
          schemes: ['https'],
          tags: ['core_v1'],
          operationId: `connectCoreV1${Title(m)}NamespacedPodProxy${suffix}`,
          responses: { '200': { description: 'OK', schema: { type: 'string' } }, '401': { description: 'Unauthorized' } },
          'x-kubernetes-action': 'connect',
          'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'PodProxyOptions' },
        });
    }
    const names = (path: string): string[] => doc.paths[path].parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    expect(names(POD)).toEqual(['path:name', 'path:namespace']);
    expect(doc.paths[POD].parameters[0]).toEqual({
      uniqueItems: true,
      type: 'string',
      description: 'name of the PodProxyOptions',
      name: 'name',
      in: 'path',
      required: true,
    });
    expect(names(`${POD}/{path}`)).toEqual(['path:name', 'path:namespace', 'path:path']);
    expect(doc.paths[`${POD}/{path}`].parameters[2]).toEqual({
      uniqueItems: true,
      type: 'string',
      description: 'path to the resource',
      name: 'path',
      in: 'path',
      required: true,
    });

    // A cluster-scoped kind without a proxy kind of its own: its own kind, no namespace.
    expect(doc.paths[NODE].get.operationId).toBe('connectCoreV1GetNodeProxy');
    expect(doc.paths[`${NODE}/{path}`].options.operationId).toBe('connectCoreV1OptionsNodeProxyWithPath');
    expect(doc.paths[NODE].get['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Node' });
    expect(names(`${NODE}/{path}`)).toEqual(['path:name', 'path:path']);

    // kubectl's protobuf form carries the head and options operations and the string answers too.
    const proto = await fetch(`${url}/openapi/v2`, { headers: { Accept: MIME_V2_PROTOBUF } });
    expect(proto.status).toBe(200);
    // biome-ignore lint/suspicious/noExplicitAny: the decoded message is checked field by field
    const decoded = OpenAPIV2Document.decode(new Uint8Array(await proto.arrayBuffer())) as any;
    // biome-ignore lint/suspicious/noExplicitAny: as above
    const item = decoded.paths.path.find((p: any) => p.name === `${POD}/{path}`)?.value;
    expect(item?.head?.operation_id).toBe('connectCoreV1HeadNamespacedPodProxyWithPath');
    expect(item?.options?.operation_id).toBe('connectCoreV1OptionsNamespacedPodProxyWithPath');
  });

  it('v3: the same operations, answering */* of type string', async () => {
    const { url, server } = await start();
    await server.addResource(Pod);
    const doc = await json(await fetch(`${url}/openapi/v3/api/v1`));
    expect(methodsOf(doc.paths[POD]).sort()).toEqual(METHODS);
    expect(methodsOf(doc.paths[`${POD}/{path}`]).sort()).toEqual(METHODS);
    expect(doc.paths[`${POD}/{path}`].head).toEqual({
      tags: ['core_v1'],
      description: 'connect HEAD requests to proxy of Pod',
      operationId: 'connectCoreV1HeadNamespacedPodProxyWithPath',
      responses: {
        '200': { description: 'OK', content: { '*/*': { schema: { type: 'string' } } } },
        '401': { description: 'Unauthorized' },
      },
      'x-kubernetes-action': 'connect',
      'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'PodProxyOptions' },
    });
    expect(doc.paths[`${POD}/{path}`].parameters.map((p: { name: string }) => p.name)).toEqual(['name', 'namespace', 'path']);
    // The kind's other paths are as before.
    expect(methodsOf(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}'])).toEqual(['get', 'put', 'delete', 'patch']);
  });
});

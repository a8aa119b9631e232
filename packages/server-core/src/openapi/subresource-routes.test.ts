import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeObject } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import type { SubresourceStorage } from '../endpoints/subresource-storage.ts';
import { json, testServers } from '../test-support/test-servers.ts';
import { Widget } from './test-support/widget.ts';

/**
 * OpenAPI v2 and v3 list a kind's subresources from its storages, as kube's installer publishes a route per verb a
 * storage implements: status and scale with get/put/patch, a custom storage with its own verbs and kind (its
 * definition published as an object of that kind when no served kind defines it), and follow a kind re-added with
 * other subresources.
 */

const execFileAsync = promisify(execFile);
const start = testServers();
const GROUP = 'example.kapi.dev';
const ITEM = `/apis/${GROUP}/v1/namespaces/{namespace}/widgets/{name}`;
const V3 = `/openapi/v3/apis/${GROUP}/v1`;

const summary = (store: Store): SubresourceStorage => ({
  kind: { group: GROUP, version: 'v1', kind: 'WidgetSummary' },
  async get({ context, info }) {
    return { apiVersion: `${GROUP}/v1`, kind: 'WidgetSummary', metadata: { name: (await store.get(context, info.name)).metadata.name } };
  },
});
const ping = (): SubresourceStorage => ({
  kind: { group: GROUP, version: 'v1', kind: 'Ping' },
  async create(_request, body) {
    return { object: body as KubeObject };
  },
});

const methodsOf = (item: Record<string, unknown> | undefined): string[] => Object.keys(item ?? {}).filter((k) => k !== 'parameters');

describe('OpenAPI paths of subresources', () => {
  it('v3: status and scale with get/put/patch; a custom storage with its verbs, kind and definition', async () => {
    const { url, server } = await start();
    await server.addResource(Widget, {
      subresources: new Map<string, (store: Store) => SubresourceStorage>([
        ['summary', summary],
        ['ping', ping],
      ]),
    });
    const doc = await json(await fetch(`${url}${V3}`));
    expect(methodsOf(doc.paths[`${ITEM}/status`])).toEqual(['get', 'put', 'patch']);
    expect(methodsOf(doc.paths[`${ITEM}/scale`])).toEqual(['get', 'put', 'patch']);
    expect(doc.paths[`${ITEM}/scale`].get['x-kubernetes-group-version-kind']).toEqual({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });

    const summaryPath = doc.paths[`${ITEM}/summary`];
    expect(methodsOf(summaryPath)).toEqual(['get']);
    expect(summaryPath.get).toMatchObject({
      operationId: 'readExampleKapiDevV1NamespacedWidgetSummary',
      description: 'read summary of the specified Widget',
      'x-kubernetes-action': 'get',
      'x-kubernetes-group-version-kind': { group: GROUP, version: 'v1', kind: 'WidgetSummary' },
      responses: {
        '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/dev.kapi.example.v1.WidgetSummary' } } } },
      },
    });
    expect(summaryPath.parameters.map((p: { name: string }) => p.name)).toEqual(['name', 'namespace', 'pretty']);

    const pingPath = doc.paths[`${ITEM}/ping`];
    expect(methodsOf(pingPath)).toEqual(['post']);
    expect(pingPath.post).toMatchObject({
      operationId: 'createExampleKapiDevV1NamespacedWidgetPing',
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': { group: GROUP, version: 'v1', kind: 'Ping' },
      requestBody: {
        content: { 'application/json': { schema: { $ref: '#/components/schemas/dev.kapi.example.v1.Ping' } } },
        required: true,
      },
    });
    expect(pingPath.post.parameters.map((p: { name: string }) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(Object.keys(pingPath.post.responses)).toEqual(['200', '201', '202', '401']);
    expect(doc.components.schemas['dev.kapi.example.v1.WidgetSummary']).toMatchObject({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-group-version-kind': [{ group: GROUP, version: 'v1', kind: 'WidgetSummary' }],
    });
    expect(doc.components.schemas['dev.kapi.example.v1.Ping']).toBeDefined();
  });

  it('v2: the same paths, the storage’s kind as a bare object of that kind', async () => {
    const { url, server } = await start();
    await server.addResource(Widget, { subresources: new Map([['summary', summary]]) });
    const doc = await json(await fetch(`${url}/openapi/v2`));
    expect(methodsOf(doc.paths[`${ITEM}/summary`])).toEqual(['get']);
    expect(doc.paths[`${ITEM}/summary`].get.responses['200'].schema).toEqual({ $ref: '#/definitions/dev.kapi.example.v1.WidgetSummary' });
    expect(doc.definitions['dev.kapi.example.v1.WidgetSummary']).toEqual({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: GROUP, version: 'v1', kind: 'WidgetSummary' }],
    });
    expect(methodsOf(doc.paths[`${ITEM}/status`])).toEqual(['get', 'put', 'patch']);
    // The core kinds' subresources come from their storages too: namespaces/finalize is update only.
    expect(methodsOf(doc.paths['/api/v1/namespaces/{name}/finalize'])).toEqual(['put']);
  });

  it('follows a kind re-added with other subresources (new paths, new hash)', async () => {
    const { url, server } = await start();
    await server.addResource(Widget);
    const index1 = await json(await fetch(`${url}/openapi/v3`));
    expect((await json(await fetch(`${url}${V3}`))).paths[`${ITEM}/summary`]).toBeUndefined();
    await server.removeResource(Widget);
    await server.addResource(Widget, { subresources: new Map([['summary', summary]]) });
    const index2 = await json(await fetch(`${url}/openapi/v3`));
    expect(index2.paths[`apis/${GROUP}/v1`].serverRelativeURL).not.toBe(index1.paths[`apis/${GROUP}/v1`].serverRelativeURL);
    expect(methodsOf((await json(await fetch(`${url}${V3}`))).paths[`${ITEM}/summary`])).toEqual(['get']);
  });

  it('kubectl reads the documents: explain of the kind works beside a subresource of an unknown kind', { timeout: 60_000 }, async () => {
    const [bin] = kubectlBinaries(['kubectl']);
    const { url, server } = await start();
    await server.addResource(Widget, { subresources: new Map([['summary', summary]]) });
    const tmp = await mkdtemp(join(tmpdir(), 'kapi-openapi-subresources-'));
    try {
      const kubeconfig = join(tmp, 'kubeconfig');
      await writePlainKubeconfig(kubeconfig, url);
      const { stdout } = await execFileAsync(bin as string, ['--cache-dir', join(tmp, 'cache'), 'explain', 'widgets.spec'], {
        env: { PATH: process.env.PATH ?? '', HOME: tmp, KUBECONFIG: kubeconfig },
      });
      expect(stdout).toContain('How many widgets to run.');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

import { ConfigMap, Namespace, Secret } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { json, testServers } from '../test-support/test-servers.ts';

/**
 * Bodies as kube's decoding into Go types leaves them: JSON null keeps a field's zero value (a ConfigMap whose
 * manifest says `data:` and nothing under it is created without data), and ObjectMeta's empty members are gone once
 * encoded again (`annotations: {}` from a strategic merge patch, as kubectl diff sends, is not in the object).
 */

const start = testServers({ resources: [Namespace, ConfigMap, Secret] });
const CMS = '/api/v1/namespaces/default/configmaps';

function send(url: string, method: string, path: string, body: unknown, contentType = 'application/json'): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('null and empty members, as Go decodes and encodes them', () => {
  it('a built-in kind’s fields sent as null are left out, a map’s null values are "" (they were a 422: "must be of type object")', async () => {
    const { url } = await start();
    const cm = await send(
      url,
      'POST',
      CMS,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: helm\ndata:\nbinaryData:\n',
      'application/yaml',
    );
    expect(cm.status).toBe(201);
    const created = await json(cm);
    expect(created).not.toHaveProperty('data');
    expect(created).not.toHaveProperty('binaryData');
    const secret = await send(url, 'POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: null,
      stringData: null,
      type: null,
    });
    expect(secret.status).toBe(201);
    // A null type is the empty string in Go, which defaulting makes Opaque.
    expect(await json(secret)).toMatchObject({ type: 'Opaque' });
    // A map value or a label left blank (`app: {{ .Values.unset }}` renders `app:`) is the empty string in Go.
    const blank = await send(
      url,
      'POST',
      CMS,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blank\n  labels:\n    app:\n  annotations:\n    note:\ndata:\n  key:\n',
      'application/yaml',
    );
    expect(blank.status).toBe(201);
    expect(await json(blank)).toMatchObject({ metadata: { labels: { app: '' }, annotations: { note: '' } }, data: { key: '' } });
    // A value of another type is still refused.
    const bad = await send(url, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, data: { a: 1 } });
    expect(bad.status).toBe(422);
  });

  it('a built-in kind’s omitempty maps and lists are left out when empty, and not owned in managedFields', async () => {
    const { url } = await start();
    const cm = await json(
      await send(url, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'empty' }, data: {}, binaryData: {} }),
    );
    expect(cm).not.toHaveProperty('data');
    expect(cm).not.toHaveProperty('binaryData');
    // Nothing left to own: no entry at all, as kube's field manager drops an empty set.
    expect(cm.metadata.managedFields).toBeUndefined();
    const secret = await json(
      await send(url, 'POST', '/api/v1/namespaces/default/secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'e' },
        data: {},
        stringData: {},
      }),
    );
    expect(Object.keys(secret).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'type']);
  });

  it('metadata’s null and empty members are not kept, on create and on what a patch makes', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', CMS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'e', generateName: '', labels: {}, annotations: null, finalizers: [], ownerReferences: [], generation: 0 },
      data: { a: '1' },
    });
    expect(res.status).toBe(201);
    const meta = (await json(res)).metadata;
    expect(Object.keys(meta).sort()).toEqual(['creationTimestamp', 'managedFields', 'name', 'namespace', 'resourceVersion', 'uid']);
    // What kubectl diff sends for an object without last-applied configuration.
    const patched = await send(
      url,
      'PATCH',
      `${CMS}/e`,
      { metadata: { annotations: {} }, data: { a: '2' } },
      'application/strategic-merge-patch+json',
    );
    expect(patched.status).toBe(200);
    expect((await json(patched)).metadata).not.toHaveProperty('annotations');
    const labelled = await send(url, 'PATCH', `${CMS}/e`, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
    expect((await json(labelled)).metadata.labels).toEqual({ x: 'y' });
    const unlabelled = await send(url, 'PATCH', `${CMS}/e`, { metadata: { labels: { x: null } } }, 'application/merge-patch+json');
    expect((await json(unlabelled)).metadata).not.toHaveProperty('labels');
  });
});

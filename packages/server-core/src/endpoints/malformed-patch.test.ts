import { ConfigMap, Namespace } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { testServers } from '../test-support/test-servers.ts';

const start = testServers({ resources: [Namespace, ConfigMap] });

async function patch(url: string, body: string, type: string): Promise<{ status: number; message: string }> {
  const res = await fetch(url, { method: 'PATCH', headers: { 'Content-Type': type }, body });
  return { status: res.status, message: ((await res.json()) as { message: string }).message };
}

describe('a PATCH body that is not JSON', () => {
  it('is a 400: a merge patch with json-patch’s "Invalid JSON Patch", as kube’s merge patcher answers', async () => {
    const { url } = await start();
    const post = (to: string, body: unknown) =>
      fetch(to, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then(
        (r) => r.json() as Promise<{ metadata: { resourceVersion: string } }>,
      );
    await post(`${url}/api/v1/namespaces`, { metadata: { name: 'default' } });
    const cms = `${url}/api/v1/namespaces/default/configmaps`;
    const created = await post(cms, { metadata: { name: 'c' } });
    expect(await patch(`${cms}/c`, '{spec:1}', 'application/merge-patch+json')).toEqual({ status: 400, message: 'Invalid JSON Patch' });
    const json = await patch(`${cms}/c`, '[{op:1}]', 'application/json-patch+json');
    expect(json.status).toBe(400);
    expect(json.message).toMatch(/^error decoding patch: /);
    // Nothing was changed.
    const got = (await (await fetch(`${cms}/c`)).json()) as { metadata: { resourceVersion: string } };
    expect(got.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });
});

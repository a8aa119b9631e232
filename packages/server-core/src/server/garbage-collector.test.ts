import { ConfigMap, defineResource, Event, Namespace, Secret } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { json, testServers } from '../test-support/test-servers.ts';

const start = testServers({ resources: [Namespace, ConfigMap, Secret, Event], garbageCollector: true });

const Gadget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({}) }],
});

const cms = (url: string) => `${url}/api/v1/namespaces/default/configmaps`;
const secretsUrl = (url: string) => `${url}/api/v1/namespaces/default/secrets`;

async function create(url: string, body: unknown): Promise<{ metadata: { name: string; uid: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return json(res);
}

/** Polls until `check` holds (the collector works in the background). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const status = async (url: string): Promise<number> => (await fetch(url)).status;
const ownerRef = (o: { metadata: { name: string; uid: string } }, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: o.metadata.name,
  uid: o.metadata.uid,
  ...extra,
});

describe('the garbage collector of a GenericAPIServer', () => {
  it('DELETE with propagationPolicy=Foreground answers the owner with the finalizer and a deletionTimestamp; it goes once its blocking dependents are gone', async () => {
    const { url } = await start();
    expect(await status(`${url}/healthz/poststarthook/start-garbage-collector`)).toBe(200);
    const owner = await create(cms(url), { metadata: { name: 'owner' } });
    await create(secretsUrl(url), {
      metadata: { name: 'held', finalizers: ['example.com/hold'], ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] },
    });
    await create(secretsUrl(url), { metadata: { name: 'free', ownerReferences: [ownerRef(owner)] } });
    const res = await fetch(`${cms(url)}/owner?propagationPolicy=Foreground`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(body.metadata.deletionTimestamp).toBeTruthy();
    await until(async () => (await status(`${secretsUrl(url)}/free`)) === 404, 'the free dependent is deleted');
    await until(
      async () => !!(await json(await fetch(`${secretsUrl(url)}/held`))).metadata.deletionTimestamp,
      'the held one is being deleted',
    );
    expect(await status(`${cms(url)}/owner`)).toBe(200);
    const patch = await fetch(`${secretsUrl(url)}/held`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { finalizers: null } }),
    });
    expect(patch.status).toBe(200);
    await until(async () => (await status(`${cms(url)}/owner`)) === 404, 'the owner is deleted');
  });

  it('background and orphan deletes over HTTP, and a kind added at run time owning objects', async () => {
    const { url, server } = await start();
    const a = await create(cms(url), { metadata: { name: 'a' } });
    const b = await create(cms(url), { metadata: { name: 'b' } });
    await create(secretsUrl(url), { metadata: { name: 'of-a', ownerReferences: [ownerRef(a)] } });
    await create(secretsUrl(url), { metadata: { name: 'of-b', ownerReferences: [ownerRef(b)] } });
    expect((await fetch(`${cms(url)}/a`, { method: 'DELETE' })).status).toBe(200);
    await until(async () => (await status(`${secretsUrl(url)}/of-a`)) === 404, 'the dependent of a is deleted');
    const orphaning = await json(await fetch(`${cms(url)}/b?propagationPolicy=Orphan`, { method: 'DELETE' }));
    expect(orphaning.metadata.finalizers).toEqual(['orphan']);
    await until(async () => (await status(`${cms(url)}/b`)) === 404, 'b is deleted');
    expect((await json(await fetch(`${secretsUrl(url)}/of-b`))).metadata.ownerReferences).toBeUndefined();

    await server.addResource(Gadget);
    const gadgets = `${url}/apis/example.kapi.dev/v1/namespaces/default/gadgets`;
    const g = await create(gadgets, { apiVersion: 'example.kapi.dev/v1', kind: 'Gadget', metadata: { name: 'g' } });
    await create(cms(url), {
      metadata: { name: 'of-g', ownerReferences: [{ apiVersion: 'example.kapi.dev/v1', kind: 'Gadget', name: 'g', uid: g.metadata.uid }] },
    });
    expect((await fetch(`${gadgets}/g`, { method: 'DELETE' })).status).toBe(200);
    await until(async () => (await status(`${cms(url)}/of-g`)) === 404, 'the dependent of the gadget is deleted');
  });

  it('records OwnerRefInvalidNamespace as a Warning event for a reference to an owner of another namespace', async () => {
    const { url } = await start();
    await create(`${url}/api/v1/namespaces`, { metadata: { name: 'other' } });
    const owner = await create(`${url}/api/v1/namespaces/other/configmaps`, { metadata: { name: 'owner' } });
    await create(secretsUrl(url), { metadata: { name: 'cross', ownerReferences: [ownerRef(owner)] } });
    await until(async () => (await status(`${secretsUrl(url)}/cross`)) === 404, 'the dependent is deleted');
    const events = await json(await fetch(`${url}/api/v1/namespaces/default/events`));
    expect(
      events.items.map((e: { reason: string; type: string; involvedObject: { name: string } }) => [
        e.reason,
        e.type,
        e.involvedObject.name,
      ]),
    ).toEqual([['OwnerRefInvalidNamespace', 'Warning', 'cross']]);
  });

  it('a Namespace owned by another goes through namespace deletion: its content goes with it', async () => {
    const { url } = await start();
    const namespaces = `${url}/api/v1/namespaces`;
    const parent = await create(namespaces, { metadata: { name: 'parent' } });
    await create(namespaces, {
      metadata: { name: 'child', ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'parent', uid: parent.metadata.uid }] },
    });
    await create(`${namespaces}/child/configmaps`, { metadata: { name: 'inside' } });
    expect((await fetch(`${namespaces}/parent`, { method: 'DELETE' })).status).toBe(200);
    await until(async () => (await status(`${namespaces}/child`)) === 404, 'the child namespace is deleted');
    // The namespace controller emptied it first (a Store delete alone would have left its content behind).
    expect(await status(`${namespaces}/child/configmaps/inside`)).toBe(404);
  });

  it('is off unless asked for: a dependent outlives its owner', async () => {
    const { url } = await start({ garbageCollector: false });
    const owner = await create(cms(url), { metadata: { name: 'owner' } });
    await create(secretsUrl(url), { metadata: { name: 'dep', ownerReferences: [ownerRef(owner)] } });
    expect((await fetch(`${cms(url)}/owner`, { method: 'DELETE' })).status).toBe(200);
    // A server with the collector, on the same kinds, removes such a dependent within a few event-loop turns.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 1));
    expect(await status(`${secretsUrl(url)}/dep`)).toBe(200);
    expect((await fetch(`${url}/healthz/poststarthook/start-garbage-collector`)).status).toBe(404);
  });
});

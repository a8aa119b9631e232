import type { AdmissionAttributes } from '@kapi/admission';
import { type KubeObject, newForbidden } from '@kapi/apimachinery';
import { ConfigMap, Namespace, type Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import type { Admission } from '../endpoints/resource-handler.ts';
import { json, testServers } from '../test-support/test-servers.ts';
import type { APIProvider, WriteCheck } from './api-provider.ts';
import { GenericAPIServer } from './generic-api-server.ts';

/** APIProvider: a package's kinds, the checks on their writes, and its hooks, installed into a GenericAPIServer. */

const CMS = '/api/v1/namespaces/default/configmaps';

const serve = testServers({ resources: [Namespace], tokens: 'bob-token,bob,2,"dev"\n' });
const start = async (options: Parameters<typeof serve>[0]): Promise<string> => (await serve(options)).url;

function send(url: string, method: string, body: unknown, contentType = 'application/json'): Promise<Response> {
  return fetch(url, { method, headers: { 'content-type': contentType, authorization: 'Bearer bob-token' }, body: JSON.stringify(body) });
}

const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data }) as KubeObject;

/** Refuses any ConfigMap holding a `secret` key, with a 403 of its own, and records what it saw. */
function guard(): { check: WriteCheck; seen: AdmissionAttributes[] } {
  const seen: AdmissionAttributes[] = [];
  return {
    seen,
    check: {
      resource: 'configmaps',
      async check(attrs) {
        seen.push(attrs);
        const data = (attrs.object as { data?: Record<string, string> } | null)?.data ?? {};
        if ('secret' in data)
          throw newForbidden({ group: '', resource: 'configmaps' }, attrs.name, `user "${attrs.userInfo.name}" may not store secrets`);
      },
    },
  };
}

describe('APIProvider', () => {
  it("serves the provider's resources and runs its write check on create, update and patch, without admission", async () => {
    const { check, seen } = guard();
    const provider: APIProvider = { name: 'configs', resources: [ConfigMap], writeChecks: [check] };
    const url = await start({ providers: [provider] });

    const created = await send(`${url}${CMS}`, 'POST', cm('a', { k: 'v' }));
    expect(created.status).toBe(201);
    expect(seen.at(-1)).toMatchObject({
      operation: 'CREATE',
      namespace: 'default',
      name: 'a',
      oldObject: null,
      dryRun: false,
      userInfo: { name: 'bob', groups: ['dev', 'system:authenticated'] },
    });

    const refused = await send(`${url}${CMS}`, 'POST', cm('b', { secret: 'x' }));
    expect(refused.status).toBe(403);
    expect(await json(refused)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "b" is forbidden: user "bob" may not store secrets',
      reason: 'Forbidden',
      details: { name: 'b', kind: 'configmaps' },
      code: 403,
    });
    // dryRun writes are checked too.
    expect((await send(`${url}${CMS}?dryRun=All`, 'POST', cm('c', { secret: 'x' }))).status).toBe(403);
    expect(seen.at(-1)).toMatchObject({ dryRun: true, name: 'c' });

    const current = await json(await fetch(`${url}${CMS}/a`, { headers: { authorization: 'Bearer bob-token' } }));
    const update = await send(`${url}${CMS}/a`, 'PUT', { ...current, data: { secret: 'x' } });
    expect(update.status).toBe(403);
    expect(seen.at(-1)).toMatchObject({ operation: 'UPDATE', oldObject: { data: { k: 'v' } }, object: { data: { secret: 'x' } } });

    // A patch is checked on the patched object: the check sees the merge of the stored data and the patch.
    const patch = await send(`${url}${CMS}/a`, 'PATCH', { data: { secret: 'x' } }, 'application/merge-patch+json');
    expect(patch.status).toBe(403);
    expect(seen.at(-1)).toMatchObject({ operation: 'UPDATE', object: { data: { k: 'v', secret: 'x' } } });
    const fine = await send(`${url}${CMS}/a`, 'PATCH', { data: { other: 'y' } }, 'application/merge-patch+json');
    expect(fine.status).toBe(200);
    expect((await json(fine)).data).toEqual({ k: 'v', other: 'y' });

    // Nothing refused was stored.
    const list = await json(await fetch(`${url}${CMS}`, { headers: { authorization: 'Bearer bob-token' } }));
    expect(list.items.map((i: KubeObject) => [i.metadata.name, (i as { data?: unknown }).data])).toEqual([['a', { k: 'v', other: 'y' }]]);
  });

  it('runs the check after mutating admission and before validating admission', async () => {
    const order: string[] = [];
    const admission: Admission = {
      async admit(attrs) {
        order.push(`admit ${attrs.operation}`);
        // Mutating admission may add what the check refuses: the check sees the final object.
        if (attrs.object && attrs.name === 'sneaky') (attrs.object as { data?: Record<string, string> }).data = { secret: 'x' };
      },
      async validate(attrs) {
        order.push(`validate ${attrs.operation}`);
      },
    };
    const check: WriteCheck = {
      resource: 'configmaps',
      async check(attrs) {
        order.push(`check ${attrs.operation}`);
        if ('secret' in ((attrs.object as { data?: object }).data ?? {}))
          throw newForbidden({ group: '', resource: 'configmaps' }, attrs.name, 'no');
      },
    };
    const url = await start({ admission, providers: [{ name: 'configs', resources: [ConfigMap], writeChecks: [check] }] });
    expect((await send(`${url}${CMS}`, 'POST', cm('ok', {}))).status).toBe(201);
    expect(order).toEqual(['admit CREATE', 'check CREATE', 'validate CREATE']);
    order.length = 0;
    expect((await send(`${url}${CMS}`, 'POST', cm('sneaky', {}))).status).toBe(403);
    expect(order).toEqual(['admit CREATE', 'check CREATE']);
  });

  it("runs the check before the kind's validation, as kube's policy-based storage does: an invalid and refused write is a 403", async () => {
    const { check, seen } = guard();
    const url = await start({ providers: [{ name: 'configs', resources: [ConfigMap], writeChecks: [check] }] });
    // "not a key!" is no valid ConfigMap key (422 alone); the secret key makes the check refuse it first.
    const invalid = { 'not a key!': 'v', secret: 'x' };
    const created = await send(`${url}${CMS}`, 'POST', cm('bad', invalid));
    expect(created.status).toBe(403);
    expect((await json(created)).message).toBe('configmaps "bad" is forbidden: user "bob" may not store secrets');
    expect((await send(`${url}${CMS}?dryRun=All`, 'POST', cm('bad', invalid))).status).toBe(403);
    // Invalid alone is the kind's 422.
    expect((await send(`${url}${CMS}`, 'POST', cm('bad', { 'not a key!': 'v' }))).status).toBe(422);

    expect((await send(`${url}${CMS}`, 'POST', cm('a', { k: 'v' }))).status).toBe(201);
    const current = await json(await fetch(`${url}${CMS}/a`, { headers: { authorization: 'Bearer bob-token' } }));
    const put = await send(`${url}${CMS}/a`, 'PUT', { ...current, data: invalid });
    expect(put.status).toBe(403);
    // Create on update (PUT to a missing name) too.
    expect((await send(`${url}${CMS}/b`, 'PUT', cm('b', invalid))).status).toBe(403);
    expect(seen.at(-1)).toMatchObject({ operation: 'CREATE', name: 'b', oldObject: null });
    // A patch: the check sees the patched object (stored data and the patch's) before validation refuses its key.
    const patch = await send(`${url}${CMS}/a`, 'PATCH', { data: invalid }, 'application/merge-patch+json');
    expect(patch.status).toBe(403);
    expect(seen.at(-1)).toMatchObject({ operation: 'UPDATE', object: { data: { k: 'v', ...invalid } }, oldObject: { data: { k: 'v' } } });
    const dryPatch = await send(`${url}${CMS}/a?dryRun=All`, 'PATCH', { data: invalid }, 'application/merge-patch+json');
    expect(dryPatch.status).toBe(403);
    expect(seen.at(-1)).toMatchObject({ dryRun: true });
    const jsonPatch = [
      { op: 'add', path: '/data/secret', value: 'x' },
      { op: 'add', path: '/data/not a key!', value: 'v' },
    ];
    expect((await send(`${url}${CMS}/a`, 'PATCH', jsonPatch, 'application/json-patch+json')).status).toBe(403);
    // What passes the check is still validated.
    expect((await send(`${url}${CMS}/a`, 'PATCH', { data: { 'not a key!': 'v' } }, 'application/merge-patch+json')).status).toBe(422);
    const list = await json(await fetch(`${url}${CMS}`, { headers: { authorization: 'Bearer bob-token' } }));
    expect(list.items.map((i: KubeObject) => [i.metadata.name, (i as { data?: unknown }).data])).toEqual([['a', { k: 'v' }]]);
  });

  it("runs the provider's post-start hooks after the caches are ready (in /healthz) and its pre-shutdown hooks", async () => {
    const events: string[] = [];
    let store: Store | undefined;
    const provider: APIProvider = {
      name: 'configs',
      resources: [ConfigMap],
      postStartHooks: [
        {
          name: 'configs/bootstrap',
          async run(server) {
            store = server.store('configmaps');
            await store?.create({ namespace: 'default' }, cm('bootstrapped', {}));
            events.push('post-start');
          },
        },
      ],
      preShutdownHooks: [{ name: 'configs/flush', run: () => void events.push('pre-shutdown') }],
    };
    const { url, stop } = await serve({ providers: [provider] });
    expect(events).toEqual(['post-start']);
    const verbose = await fetch(`${url}/healthz?verbose`, { headers: { authorization: 'Bearer bob-token' } }).then((r) => r.text());
    expect(verbose).toContain('[+]poststarthook/configs/bootstrap ok\n');
    const got = await fetch(`${url}${CMS}/bootstrapped`, { headers: { authorization: 'Bearer bob-token' } });
    expect(got.status).toBe(200);
    await stop();
    expect(events).toEqual(['post-start', 'pre-shutdown']);
  });

  it('takes a provider built against the structural shape alone (authz cannot import server-core)', async () => {
    // What packages/authz declares on its side: a subset of AdmissionAttributes, and a server that has store().
    interface Attrs {
      readonly operation: string;
      readonly namespace: string;
      readonly name: string;
      readonly object: unknown;
      readonly oldObject: unknown;
      readonly userInfo: { readonly name: string; readonly groups: readonly string[] };
      readonly dryRun: boolean;
    }
    const stores: (Store | undefined)[] = [];
    const shaped = {
      name: 'shaped',
      resources: [ConfigMap],
      writeChecks: [{ resource: 'configmaps', check: async (a: Attrs) => void a.userInfo.name }],
      postStartHooks: [
        { name: 'shaped/hook', run: (s: { store(resource: string): Store | undefined }) => void stores.push(s.store('configmaps')) },
      ],
    };
    const provider: APIProvider = shaped;
    const { server } = await serve({ providers: [provider] });
    expect(stores).toEqual([server.store('configmaps')]);
    expect(stores[0]).toBeDefined();
  });

  it('refuses a write check of a kind the server does not serve (it would guard nothing)', () => {
    const check: WriteCheck = { resource: 'roles.rbac.authorization.k8s.io', check: async () => {} };
    expect(
      () =>
        new GenericAPIServer({ storage: new MemoryStorage(), resources: [ConfigMap], providers: [{ name: 'rbac', writeChecks: [check] }] }),
    ).toThrow('write check of rbac: resource roles.rbac.authorization.k8s.io is not served by this server');
  });

  it("puts a provider's routes before the server's own, after the filters, for resource and other paths alike", async () => {
    const seen: string[] = [];
    const provider: APIProvider = {
      name: 'router',
      routes: [
        async (ctx, next) => {
          seen.push(`${ctx.user?.name} ${ctx.url.pathname}`);
          if (!ctx.url.pathname.startsWith('/apis/remote.example.com/')) return next();
          ctx.res.writeHead(200, { 'content-type': 'text/plain' }).end('routed');
        },
      ],
    };
    const url = await start({ providers: [provider] });
    const routed = await fetch(`${url}/apis/remote.example.com/v1/things`, { headers: { authorization: 'Bearer bob-token' } });
    expect([routed.status, await routed.text()]).toEqual([200, 'routed']);
    const own = await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: 'Bearer bob-token' } });
    expect(own.status).toBe(200);
    const version = await fetch(`${url}/version`, { headers: { authorization: 'Bearer bob-token' } });
    expect(version.status).toBe(200);
    expect(seen).toEqual(['bob /apis/remote.example.com/v1/things', 'bob /api/v1/namespaces', 'bob /version']);
  });
});

import type { KubeObject } from '@kapi/apimachinery';
import { defineResource } from '@kapi/registry';
import { MemoryStorage, type Storage, type Watch } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Widget } from '../openapi/test-support/widget.ts';
import { EventStream } from '../test-support/event-stream.ts';
import { json, post, testServers } from '../test-support/test-servers.ts';
import type { ResourcesChange } from './generic-api-server.ts';

/** replaceResource (a CRD's spec changed) and AddResourceOptions.storage (work on every read from storage). */

const start = testServers();
const GROUP = 'example.kapi.dev';
const widgets = (version = 'v1'): string => `/apis/${GROUP}/${version}/namespaces/default/widgets`;
const widget = (name: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { replicas: 1 } });

/** Widget with a second served version, v2 (the same shape), as a CRD gains one. */
const WidgetV2 = defineResource({
  group: GROUP,
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1', storage: true }, { name: 'v2' }],
  schema: z.object({ spec: z.looseObject({ replicas: z.int32().optional() }).optional() }),
});

/** Marks every object read from `inner` with an annotation, as a CRD's defaults are applied on read. */
function annotatingReads(inner: Storage): Storage {
  const mark = (o: KubeObject): KubeObject => ({
    ...o,
    metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, 'example.kapi.dev/read': 'yes' } },
  });
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'get')
        return async (...a: Parameters<Storage['get']>) => {
          const o = await target.get(...a);
          return o && mark(o);
        };
      if (prop === 'list')
        return async (...a: Parameters<Storage['list']>) => {
          const l = await target.list(...a);
          return { ...l, items: l.items.map(mark) };
        };
      if (prop === 'watch')
        return (...a: Parameters<Storage['watch']>): Watch => {
          const w = target.watch(...a);
          return {
            stop: () => w.stop(),
            async *[Symbol.asyncIterator]() {
              for await (const ev of w)
                yield ev.type === 'ERROR' || ev.type === 'BOOKMARK' ? ev : { ...ev, object: mark(ev.object as KubeObject) };
            },
          };
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('replaceResource', () => {
  it('swaps the kind in one step: every request is answered, the new version is served, old watches end, objects stay', async () => {
    const { url, server } = await start({ storage: new MemoryStorage() });
    await server.addResource(Widget);
    expect((await post(`${url}${widgets()}`, widget('a'), {})).status).toBe(201);
    const list = await json(await fetch(`${url}${widgets()}`));
    const watch = await EventStream.open(`${url}${widgets()}?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=30`);
    const heard: ResourcesChange['type'][] = [];
    server.onResourcesChanged((c) => heard.push(c.type));
    expect((await fetch(`${url}${widgets('v2')}`)).status).toBe(404);

    // Reads racing the swap: each finds the old kind or the new one, never neither.
    let racing = true;
    const statuses: number[] = [];
    const reader = (async () => {
      while (racing) statuses.push((await fetch(`${url}${widgets()}/a`)).status);
    })();
    await server.replaceResource(WidgetV2);
    racing = false;
    await reader;
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));

    expect(heard).toEqual(['Removed', 'Added']);
    const v2 = await fetch(`${url}${widgets('v2')}/a`);
    expect(v2.status).toBe(200);
    expect((await json(v2)).apiVersion).toBe(`${GROUP}/v2`);
    // The old kind's watch ends cleanly (the stream closes), as kube's does when a CRD's storage is replaced.
    await expect(watch.next()).resolves.toBeUndefined();
    const groups = await json(await fetch(`${url}/apis/${GROUP}`));
    expect(groups.versions.map((v: { version: string }) => v.version).sort()).toEqual(['v1', 'v2']);
  });

  it('adds a kind that is not served, and refuses Namespace', async () => {
    const { url, server } = await start({ storage: new MemoryStorage() });
    await server.replaceResource(Widget);
    expect((await fetch(`${url}${widgets()}`)).status).toBe(200);
    const { Namespace } = await import('@kapi/registry');
    await expect(server.replaceResource(Namespace)).rejects.toThrow(/Namespace/);
  });
});

describe('AddResourceOptions.storage', () => {
  it('wraps the backend under the watch cache and the Store: reads, lists and watch events pass through it', async () => {
    const { url, server } = await start({ storage: new MemoryStorage() });
    await server.addResource(Widget, { storage: annotatingReads });
    const created = await json(await post(`${url}${widgets()}`, widget('a'), {}));
    expect(created.metadata.name).toBe('a');
    const watch = await EventStream.open(`${url}${widgets()}?watch=1&resourceVersion=${created.metadata.resourceVersion}&timeoutSeconds=5`);
    const got = await json(await fetch(`${url}${widgets()}/a`));
    expect(got.metadata.annotations).toEqual({ 'example.kapi.dev/read': 'yes' });
    const list = await json(await fetch(`${url}${widgets()}`));
    expect(list.items[0].metadata.annotations).toEqual({ 'example.kapi.dev/read': 'yes' });
    await post(`${url}${widgets()}`, widget('b'), {});
    const ev = await watch.next();
    expect(ev).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b', annotations: { 'example.kapi.dev/read': 'yes' } } } });
    watch.close();
  });
});

import { type KubeObject, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { Store } from './store.ts';
import { StoreKeys } from './store-keys.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({ spec: z.object({ n: z.int() }).optional() }),
});
const Cluster = defineResource({
  group: 'example.kapi.dev',
  kind: 'Cluster',
  plural: 'clusters',
  namespaced: false,
  versions: [{ name: 'v1' }],
  schema: z.object({}),
});

/** The Status a call failed with. */
async function failure(call: () => unknown): Promise<StatusError> {
  try {
    await call();
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected the call to fail');
}

describe('StoreKeys', () => {
  it('builds keys under the resource prefix', () => {
    expect(new StoreKeys(Widget).key('ns', 'a')).toBe('/registry/example.kapi.dev/widgets/ns/a');
    expect(new StoreKeys(Widget).prefix('ns')).toBe('/registry/example.kapi.dev/widgets/ns');
    expect(new StoreKeys(Cluster).key(undefined, '..a')).toBe('/registry/example.kapi.dev/clusters/..a');
  });

  it.each([
    ['.', 'Name parameter invalid: ".": may not be \'.\''],
    ['..', 'Name parameter invalid: "..": may not be \'..\''],
    ['a%b', 'Name parameter invalid: "a%b": may not contain \'%\''],
    ['a/b%', "Name parameter invalid: \"a/b%\": may not contain '/';may not contain '%'"],
  ])("refuses the name %j with kube NamespaceKeyFunc's 400", async (name, message) => {
    for (const keys of [new StoreKeys(Widget), new StoreKeys(Cluster)]) {
      const err = await failure(() => keys.key('ns', name));
      expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message });
    }
  });

  it('refuses a namespace that is not one path segment, for keys and for list prefixes', async () => {
    const keys = new StoreKeys(Widget);
    for (const ns of ['.', '..', 'a/b', '%2e']) {
      expect((await failure(() => keys.key(ns, 'x'))).status.code).toBe(400);
      expect((await failure(() => keys.prefix(ns))).status.message).toMatch(/^Namespace parameter invalid: /);
    }
  });
});

describe('Store with names that are not a path segment', () => {
  const storage = new MemoryStorage();
  afterEach(() => storage.close());
  const store = new Store(Widget, { storage });
  const body = (name: string): KubeObject => ({ apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name } });

  it('answers every verb with 400 BadRequest before storage sees the key', async () => {
    for (const [namespace, name] of [
      ['default', '..'],
      ['default', '.'],
      ['default', 'a%b'],
      ['..', 'x'],
      ['.', 'x'],
    ] as const) {
      const ctx = { namespace };
      const calls: Array<() => unknown> = [
        () => store.get(ctx, name),
        () => store.update(ctx, name, body(name)),
        () => store.patch(ctx, name, { metadata: { labels: { a: 'b' } } }, 'merge'),
        () => store.delete(ctx, name),
      ];
      if (name === 'x')
        calls.push(
          () => store.list(ctx),
          () => store.watch(ctx),
          () => store.deleteCollection(ctx, {}, {}),
        );
      for (const call of calls) expect((await failure(call)).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    }
  });
});

import { FakeClock, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { Store } from './store.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({ spec: z.object({ replicas: z.int().min(0), color: z.string().optional() }) }),
});

const ns = { namespace: 'default' };
const PREFIX = 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: ';

/** A raw body whose spec.replicas is given twice (the last, `replicas`, wins) next to an unknown spec.foo. */
const raw = (name: string, replicas: number, extra = '') =>
  `{"apiVersion":"example.kapi.dev/v1","kind":"Widget","metadata":{"name":"${name}"${extra}},` +
  `"spec":{"replicas":0,"foo":1,"replicas":${replicas}}}`;

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

describe('Store with raw JSON bodies (duplicate fields per fieldValidation)', () => {
  let storage: MemoryStorage;
  let store: Store;

  beforeEach(() => {
    storage = new MemoryStorage({ compaction: false });
    store = new Store(Widget, { storage, clock: new FakeClock(Date.UTC(2026, 0, 2)) });
  });
  afterEach(() => storage.close());

  describe('create', () => {
    it('Strict refuses duplicates and unknown fields in one 400 and stores nothing', async () => {
      const err = await failure(store.create(ns, raw('w1', 2), { fieldValidation: 'Strict' }));
      expect(err.code).toBe(400);
      expect(err.message).toBe(`${PREFIX}duplicate field "spec.replicas", unknown field "spec.foo"`);
      expect((await store.list(ns)).items).toEqual([]);
    });

    it('Warn (the default) stores the last duplicate and returns the warnings', async () => {
      for (const [name, opts] of [
        ['w1', { fieldValidation: 'Warn' as const }],
        ['w2', {}],
      ] as const) {
        const res = await store.create(ns, raw(name, 2), opts);
        expect(res.warnings).toEqual(['duplicate field "spec.replicas"', 'unknown field "spec.foo"']);
        expect(res.object.spec).toEqual({ replicas: 2 });
        expect((await store.get(ns, name)).spec).toEqual({ replicas: 2 });
      }
    });

    it('Ignore stores it silently', async () => {
      const res = await store.create(ns, raw('w1', 2), { fieldValidation: 'Ignore' });
      expect(res.warnings).toEqual([]);
      expect(res.object.spec).toEqual({ replicas: 2 });
    });

    it('takes UTF-8 bytes, and refuses malformed JSON with a 400', async () => {
      const res = await store.create(ns, new TextEncoder().encode(raw('w1', 4)));
      expect(res.object.spec).toEqual({ replicas: 4 });
      const err = await failure(store.create(ns, '{"metadata":{"name":"w2"},'));
      expect(err.code).toBe(400);
      expect(err.message).toMatch(/^Widget in version "v1" cannot be handled as a Widget: json parse error: /);
    });

    it('dryRun still reports the warnings', async () => {
      const res = await store.create(ns, raw('w1', 2), { dryRun: true });
      expect(res.warnings).toHaveLength(2);
      expect((await store.list(ns)).items).toEqual([]);
    });
  });

  describe('update', () => {
    let rv: string;
    beforeEach(async () => {
      const created = await store.create(ns, raw('w1', 1), { fieldValidation: 'Ignore' });
      rv = created.object.metadata.resourceVersion as string;
    });

    it('Strict refuses duplicates, metadata ones included, and leaves the object as it was', async () => {
      const body = raw('w1', 5, `,"resourceVersion":"${rv}","resourceVersion":"${rv}"`);
      const err = await failure(store.update(ns, 'w1', body, { fieldValidation: 'Strict' }));
      expect(err.code).toBe(400);
      expect(err.message).toBe(
        `${PREFIX}duplicate field "metadata.resourceVersion", duplicate field "spec.replicas", unknown field "spec.foo"`,
      );
      expect((await store.get(ns, 'w1')).spec).toEqual({ replicas: 1 });
    });

    it('Warn updates with the last duplicate and returns the warnings', async () => {
      const res = await store.update(ns, 'w1', raw('w1', 5, `,"resourceVersion":"${rv}"`), { fieldValidation: 'Warn' });
      expect(res.warnings).toEqual(['duplicate field "spec.replicas"', 'unknown field "spec.foo"']);
      expect(res.object.spec).toEqual({ replicas: 5 });
      expect((await store.get(ns, 'w1')).spec).toEqual({ replicas: 5 });
    });

    it('Ignore updates silently', async () => {
      const res = await store.update(ns, 'w1', new TextEncoder().encode(raw('w1', 6, `,"resourceVersion":"${rv}"`)), {
        fieldValidation: 'Ignore',
      });
      expect(res.warnings).toEqual([]);
      expect(res.object.spec).toEqual({ replicas: 6 });
    });

    it('a raw body that names another object is refused as an object body is', async () => {
      const err = await failure(store.update(ns, 'w1', raw('other', 2)));
      expect(err.code).toBe(400);
    });
  });
});

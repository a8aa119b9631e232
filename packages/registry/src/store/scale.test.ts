import { FakeClock, type KubeObject, StatusError } from '@kapi/apimachinery';
import { MemoryStorage, type Storage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { backends } from '../test-support/backends.ts';
import { type Scale, ScaleREST, scaleFromObject } from './scale.ts';
import { Store } from './store.ts';
import { StoreKeys } from './store-keys.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z.object({ replicas: z.int().optional(), color: z.string().optional() }),
    status: z.object({ replicas: z.int().optional(), selector: z.string().optional() }).optional(),
  }),
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
  },
});

const Gadget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({ spec: z.object({ replicas: z.int() }) }),
});

const ctx = { namespace: 'ns' };

/** The StatusError `p` rejects with. */
async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

describe.each(backends)('ScaleREST over %s', (_label, wrap) => {
  let memory: MemoryStorage;
  let close: () => Promise<void>;
  let storage: Storage;
  let store: Store;
  let rest: ScaleREST;

  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    // Gadget keys lie outside the cached prefix and go straight to the backend.
    const backend = await wrap(memory, new StoreKeys(Widget).resourcePrefix);
    ({ storage, close } = backend);
    store = new Store(Widget, { storage, clock: new FakeClock(Date.parse('2024-01-02T03:04:05Z')), uid: () => 'uid-1' });
    rest = new ScaleREST(store);
  });
  afterEach(async () => {
    await close();
    await memory.close();
  });

  /** A widget with `replicas` in spec, and status set through the status subresource. */
  async function widget(name: string, replicas: number | undefined, status?: Record<string, unknown>): Promise<KubeObject> {
    const spec = replicas === undefined ? { color: 'red' } : { replicas, color: 'red' };
    const created = (await store.create(ctx, { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name }, spec })).object;
    if (!status) return created;
    return (await store.update(ctx, name, { ...created, status }, { subresource: 'status' })).object;
  }

  it('gets the Scale built from the object', async () => {
    const w = await widget('w1', 3, { replicas: 2, selector: 'app=w1' });
    expect(await rest.getScale(ctx, 'w1')).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name: 'w1',
        namespace: 'ns',
        uid: 'uid-1',
        resourceVersion: w.metadata.resourceVersion,
        creationTimestamp: '2024-01-02T03:04:05Z',
      },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=w1' },
    });
  });

  it('reads missing status replicas as 0 and leaves out an empty selector', async () => {
    await widget('w1', 1);
    const scale = await rest.getScale(ctx, 'w1');
    expect(scale.status).toEqual({ replicas: 0 });
  });

  it('refuses GET when the object has no spec replicas (500, as kube)', async () => {
    await widget('w1', undefined);
    const err = await failure(rest.getScale(ctx, 'w1'));
    expect(err.code).toBe(500);
    expect(err.message).toBe('Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
  });

  it('is 404 for a missing object', async () => {
    const err = await failure(rest.getScale(ctx, 'nope'));
    expect(err.code).toBe(404);
    expect(err.message).toBe('widgets.example.kapi.dev "nope" not found');
    expect((await failure(rest.updateScale(ctx, 'nope', { metadata: { name: 'nope' }, spec: { replicas: 1 } }))).code).toBe(404);
    expect((await failure(rest.patchScale(ctx, 'nope', { spec: { replicas: 1 } }, 'merge'))).code).toBe(404);
  });

  it('is 404 for a kind without the scale subresource', async () => {
    const gadgets = new ScaleREST(new Store(Gadget, { storage }));
    for (const p of [
      gadgets.getScale(ctx, 'g1'),
      gadgets.updateScale(ctx, 'g1', { metadata: { name: 'g1' }, spec: { replicas: 1 } }),
      gadgets.patchScale(ctx, 'g1', { spec: { replicas: 1 } }, 'merge'),
    ]) {
      const err = await failure(p);
      expect(err.code).toBe(404);
      expect(err.reason).toBe('NotFound');
      expect(err.message).toBe('the server could not find the requested resource');
    }
  });

  it('updates the spec replicas only, bumping generation and keeping status', async () => {
    const w = await widget('w1', 1, { replicas: 1, selector: 'app=w1' });
    const scale = await rest.updateScale(ctx, 'w1', {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'w1', namespace: 'ns' },
      spec: { replicas: 5 },
      // Status in the body is ignored: only spec replicas are written.
      status: { replicas: 9 },
    });
    const stored = await store.get(ctx, 'w1');
    expect(stored.spec).toEqual({ replicas: 5, color: 'red' });
    expect(stored.status).toEqual({ replicas: 1, selector: 'app=w1' });
    expect(stored.metadata.generation).toBe(2);
    expect(scale.spec.replicas).toBe(5);
    expect(scale.status).toEqual({ replicas: 1, selector: 'app=w1' });
    expect(scale.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect(scale.metadata.resourceVersion).not.toBe(w.metadata.resourceVersion);
  });

  it('sets spec replicas the object did not have', async () => {
    await widget('w1', undefined);
    await rest.updateScale(ctx, 'w1', { metadata: { name: 'w1' }, spec: { replicas: 2 } });
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(2);
  });

  it('makes the update conditional on the Scale resourceVersion (409 when stale)', async () => {
    const w = await widget('w1', 1);
    const rv = w.metadata.resourceVersion;
    await rest.updateScale(ctx, 'w1', { metadata: { name: 'w1', resourceVersion: rv }, spec: { replicas: 2 } });
    const err = await failure(rest.updateScale(ctx, 'w1', { metadata: { name: 'w1', resourceVersion: rv }, spec: { replicas: 3 } }));
    expect(err.code).toBe(409);
    expect(err.message).toBe(
      'Operation cannot be fulfilled on widgets.example.kapi.dev "w1": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(2);
    // Without a resourceVersion the update applies to whatever is current.
    await rest.updateScale(ctx, 'w1', { metadata: { name: 'w1' }, spec: { replicas: 4 } });
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(4);
  });

  it('refuses negative replicas (422)', async () => {
    await widget('w1', 1);
    const err = await failure(rest.updateScale(ctx, 'w1', { metadata: { name: 'w1' }, spec: { replicas: -1 } }));
    expect(err.code).toBe(422);
    expect(err.message).toBe('Scale.autoscaling "w1" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    expect(err.status.details?.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' },
    ]);
    expect((await failure(rest.patchScale(ctx, 'w1', { spec: { replicas: -1 } }, 'merge'))).code).toBe(422);
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(1);
  });

  it('holds a patched Scale to fieldValidation: undeclared fields and the patch’s own strict errors warned (default), refused with Strict, ignored with Ignore', async () => {
    await widget('w1', 1);
    const warnings: string[] = [];
    const warn = (t: string) => warnings.push(t);
    const patch = { spec: { replicas: 2, replica: 3 }, metadata: { colour: 'red' } };
    const scaled = await rest.patchScale(ctx, 'w1', patch, 'merge', { warn, documentStrictErrors: ['duplicate field "spec.replicas"'] });
    expect(scaled.spec.replicas).toBe(2);
    expect(warnings).toEqual(['duplicate field "spec.replicas"', 'unknown field "metadata.colour"', 'unknown field "spec.replica"']);
    const strict = await failure(
      rest.patchScale(ctx, 'w1', { spec: { replicas: 4, x: 1 } }, 'strategic', { fieldValidation: 'Strict', warn }),
    );
    expect([strict.code, strict.message]).toEqual([
      422,
      ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:4 x:1]]": strict decoding error: unknown field "spec.x"',
    ]);
    // Keys that name Object.prototype's members are fields like any other.
    warnings.length = 0;
    await rest.patchScale(ctx, 'w1', JSON.parse('{"__proto__":{"a":1},"constructor":1,"spec":{"replicas":4,"toString":1}}'), 'merge', {
      warn,
    });
    expect(warnings).toEqual(['unknown field "spec.toString"', 'unknown field "__proto__"', 'unknown field "constructor"']);
    warnings.length = 0;
    await rest.patchScale(ctx, 'w1', { spec: { replicas: 5, x: 1 } }, 'merge', { fieldValidation: 'Ignore', warn });
    expect(warnings).toEqual([]);
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(5);
  });

  it('refuses bodies that are not a Scale or name another object (400)', async () => {
    await widget('w1', 1);
    expect((await failure(rest.updateScale(ctx, 'w1', { spec: { replicas: 'two' } }))).code).toBe(400);
    expect((await failure(rest.updateScale(ctx, 'w1', { apiVersion: 'apps/v1', kind: 'Deployment', spec: {} }))).code).toBe(400);
    const err = await failure(rest.updateScale(ctx, 'w1', { metadata: { name: 'w2' }, spec: { replicas: 1 } }));
    expect(err.message).toBe('the name of the object (w2) does not match the name on the URL (w1)');
    // No name is a mismatch too (kube's checkName), before the object is looked up.
    for (const target of ['w1', 'nope']) {
      const nameless = await failure(rest.updateScale(ctx, target, { spec: { replicas: 1 } }));
      expect(nameless.code).toBe(400);
      expect(nameless.message).toBe(`the name of the object () does not match the name on the URL (${target})`);
    }
    const removed = await failure(rest.patchScale(ctx, 'w1', { metadata: { name: null } }, 'merge'));
    expect(removed.message).toBe('the name of the object () does not match the name on the URL (w1)');
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(1);
  });

  it('refuses a Scale whose other fields do not decode as Go decodes them (400), and ignores them when they do', async () => {
    await widget('w1', 1, { replicas: 1, selector: 'app=w1' });
    const meta = { name: 'w1' };
    const bad: [Record<string, unknown>, string][] = [
      [{ metadata: meta, spec: { replicas: 2 }, status: 'x' }, 'Scale.status must be an object, got string'],
      [{ metadata: meta, spec: { replicas: 2 }, status: { replicas: 'x' } }, 'Scale.status.replicas must be a 32-bit integer, got x'],
      [{ metadata: meta, spec: { replicas: 2 }, status: { selector: 5 } }, 'Scale.status.selector must be a string, got int64'],
      [
        { metadata: { ...meta, labels: 'x' }, spec: { replicas: 2 } },
        'Scale.metadata.labels: must be a map of string keys to string values',
      ],
      [
        { metadata: { ...meta, creationTimestamp: 'yesterday' }, spec: { replicas: 2 } },
        'Scale.metadata.creationTimestamp: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
      ],
      [
        { metadata: { ...meta, ownerReferences: [{ controller: 'yes' }] }, spec: { replicas: 2 } },
        'Scale.metadata.ownerReferences[0].controller: must be a boolean',
      ],
    ];
    for (const [body, message] of bad) {
      const err = await failure(rest.updateScale(ctx, 'w1', body));
      expect([err.code, err.message]).toEqual([400, message]);
    }
    expect((await failure(rest.patchScale(ctx, 'w1', { status: { replicas: 'x' } }, 'merge'))).code).toBe(400);
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(1);
    // Well-typed, the rest is Go's to decode and the object's to answer: only spec.replicas is taken.
    const scaled = await rest.updateScale(ctx, 'w1', {
      metadata: { ...meta, labels: { a: 'b' }, creationTimestamp: null },
      spec: { replicas: 2 },
      status: { replicas: 9, selector: 'x=y' },
    });
    expect([scaled.spec.replicas, scaled.status.replicas, scaled.status.selector]).toEqual([2, 1, 'app=w1']);
  });

  it('patches the Scale with merge and JSON patches', async () => {
    await widget('w1', 1, { replicas: 1, selector: 'app=w1' });
    expect((await rest.patchScale(ctx, 'w1', { spec: { replicas: 3 } }, 'merge')).spec.replicas).toBe(3);
    const scale = await rest.patchScale(ctx, 'w1', [{ op: 'replace', path: '/spec/replicas', value: 6 }], 'json');
    expect(scale.spec.replicas).toBe(6);
    expect((await store.get(ctx, 'w1')).spec).toEqual({ replicas: 6, color: 'red' });
    // A JSON patch sees the current Scale.
    const err = await failure(rest.patchScale(ctx, 'w1', [{ op: 'test', path: '/spec/replicas', value: 1 }], 'json'));
    expect(err.code).toBe(422);
  });

  it('makes a patch conditional only when it sets a resourceVersion', async () => {
    const w = await widget('w1', 1);
    await rest.updateScale(ctx, 'w1', { metadata: { name: 'w1' }, spec: { replicas: 2 } });
    const err = await failure(
      rest.patchScale(ctx, 'w1', { metadata: { resourceVersion: w.metadata.resourceVersion }, spec: { replicas: 3 } }, 'merge'),
    );
    expect(err.code).toBe(409);
    expect((await rest.patchScale(ctx, 'w1', { spec: { replicas: 3 } }, 'merge')).spec.replicas).toBe(3);
  });

  it('refuses a patch that leaves missing spec replicas unset (400)', async () => {
    await widget('w1', undefined);
    const err = await failure(rest.patchScale(ctx, 'w1', { status: { replicas: 1 } }, 'merge'));
    expect(err.code).toBe(400);
    expect(err.message).toBe('the spec replicas field ".spec.replicas" cannot be empty');
    expect((await rest.patchScale(ctx, 'w1', { spec: { replicas: 1 } }, 'merge')).spec.replicas).toBe(1);
  });

  it('does not store on dryRun', async () => {
    await widget('w1', 1);
    expect((await rest.updateScale(ctx, 'w1', { metadata: { name: 'w1' }, spec: { replicas: 7 } }, { dryRun: true })).spec.replicas).toBe(
      7,
    );
    expect((await rest.getScale(ctx, 'w1')).spec.replicas).toBe(1);
  });

  it('admits the Scale: mutate sees the Scale asked for and the current one, its change is stored; validate sees the result', async () => {
    await widget('w1', 1, { replicas: 1 });
    const seen: string[] = [];
    const scale = await rest.patchScale(ctx, 'w1', { spec: { replicas: 4 } }, 'merge', {
      admission: {
        async mutate(obj, old) {
          seen.push(`mutate ${obj.kind} ${(obj as unknown as Scale).spec.replicas} ${(old as unknown as Scale).spec.replicas}`);
          (obj as unknown as Scale).spec.replicas = 5;
        },
        async validate(obj, old) {
          seen.push(`validate ${obj.kind} ${(obj as unknown as Scale).spec.replicas} ${(old as unknown as Scale).spec.replicas}`);
        },
      },
      objectAdmission: {
        async mutate(obj, old) {
          seen.push(
            `object ${obj.kind} ${(obj.spec as { replicas: number }).replicas} ${(old?.spec as { replicas?: number } | undefined)?.replicas}`,
          );
        },
      },
    });
    expect(seen).toEqual(['mutate Scale 4 1', 'object Widget 5 1', 'validate Scale 5 1']);
    expect(scale.spec.replicas).toBe(5);
    expect((await store.get(ctx, 'w1')).spec).toEqual({ replicas: 5, color: 'red' });
    // A refusal by validating admission stores nothing.
    const refuse = {
      async validate() {
        throw new StatusError({ code: 403, reason: 'Forbidden', message: 'no', details: {} });
      },
    };
    expect(
      (await failure(rest.updateScale(ctx, 'w1', { metadata: { name: 'w1' }, spec: { replicas: 9 } }, { admission: refuse }))).code,
    ).toBe(403);
    expect((await store.get(ctx, 'w1')).spec).toEqual({ replicas: 5, color: 'red' });
  });

  it('recomputes and re-admits the Scale on the fresh object when a write races it', async () => {
    await widget('w1', 1);
    const olds: number[] = [];
    let raced = false;
    const scale = await rest.patchScale(ctx, 'w1', [{ op: 'replace', path: '/spec/replicas', value: 3 }], 'json', {
      admission: {
        async mutate(_obj, old) {
          olds.push((old as unknown as Scale).spec.replicas);
          if (raced) return;
          raced = true;
          // Another writer scales the widget after this try read it: storage refuses this try's write, the next one
          // starts from the object that writer stored.
          await store.patch(ctx, 'w1', { spec: { replicas: 2, color: 'blue' } }, 'merge');
        },
      },
    });
    expect(olds).toEqual([1, 2]);
    expect(scale.spec.replicas).toBe(3);
    expect((await store.get(ctx, 'w1')).spec).toEqual({ replicas: 3, color: 'blue' });
  });
});

describe('scaleFromObject', () => {
  const paths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

  it('reports missing spec replicas and reads them as 0', () => {
    const res = scaleFromObject({ metadata: { name: 'w' }, spec: {} }, paths);
    expect(res.specFound).toBe(false);
    expect(res.scale.spec.replicas).toBe(0);
  });

  it('throws on wrongly typed fields, in unstructured accessor words', () => {
    expect(() => scaleFromObject({ metadata: {}, spec: { replicas: 1.5 } }, paths)).toThrow(
      '.spec.replicas accessor error: 1.5 is of the type float64, expected int64',
    );
    expect(() => scaleFromObject({ metadata: {}, spec: { replicas: 1 }, status: { selector: { app: 'x' } } }, paths)).toThrow(
      'expected string',
    );
  });
});

describe('the fields a scale subresource reads, on a kind whose schema leaves them open', () => {
  const Loose = defineResource({
    group: 'example.kapi.dev',
    kind: 'Loose',
    plural: 'looses',
    namespaced: true,
    versions: [{ name: 'v1' }],
    schema: z.object({ spec: z.looseObject({}), status: z.looseObject({}).optional() }),
    subresources: {
      status: true,
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    },
  });
  let memory: MemoryStorage;
  let store: Store;
  beforeEach(() => {
    memory = new MemoryStorage({ compaction: false });
    store = new Store(Loose, { storage: memory, clock: new FakeClock(0), uid: () => 'uid-1' });
  });
  afterEach(() => memory.close());
  const loose = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Loose',
    metadata: { name },
    spec,
  });

  it("must hold what it can read, or the write is a 422 (kube's ValidateScaleSpec/ValidateScaleStatus), so its Scale can always be read", async () => {
    const refused = async (p: Promise<unknown>) => {
      const err = await failure(p);
      expect(err.code).toBe(422);
      return err.message;
    };
    expect(await refused(store.create(ctx, loose('l1', { replicas: 'three' })))).toBe(
      'Loose.example.kapi.dev "l1" is invalid: .spec.replicas: Invalid value: 0: .spec.replicas accessor error: three is of the type string, expected int64',
    );
    expect(await refused(store.create(ctx, loose('l1', { replicas: -1 })))).toContain(
      '.spec.replicas: Invalid value: -1: should be a non-negative integer',
    );
    expect(await refused(store.create(ctx, loose('l1', { replicas: 2147483648 })))).toContain(
      '.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647',
    );
    const created = (await store.create(ctx, loose('l1', { replicas: 1 }))).object;
    // The status subresource: the status fields only.
    expect(await refused(store.update(ctx, 'l1', { ...created, status: { replicas: 'x', selector: 5 } }, { subresource: 'status' }))).toBe(
      'Loose.example.kapi.dev "l1" is invalid: [.status.replicas: Invalid value: 0: .status.replicas accessor error: x is of the type string, expected int64, .status.selector: Invalid value: "": .status.selector accessor error: 5 is of the type int64, expected string]',
    );
    expect(await refused(store.patch(ctx, 'l1', { spec: { replicas: 1.5 } }, 'merge'))).toContain('expected int64');
    expect(
      scaleFromObject(await store.get(ctx, 'l1'), Loose.subresources.scale as NonNullable<typeof Loose.subresources.scale>).scale.spec
        .replicas,
    ).toBe(1);
  });
});

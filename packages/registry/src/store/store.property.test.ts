import { jsonEqual, type KubeObject, MAX_JSON_DEPTH, StatusError, setOwn, stringifyJson } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigMap } from '../builtins/configmap.ts';
import { defineResource } from '../define-resource.ts';
import { listMap } from '../kube-extensions.ts';
import { Store } from './store.ts';
import type { PatchType } from './types.ts';

/**
 * Property-based: adversarial JSON through decode → validate → store → encode, through all three patch types, label
 * and field selectors, continue tokens and resourceVersions. Every call must end in success or a 4xx StatusError
 * (never a 5xx, never another thrown error); keys such as "__proto__" must round-trip exactly; a refused write must
 * leave the stored object byte-for-byte as it was. A failure prints fast-check's seed and path; replay it by putting
 * them in PARAMS (`{ seed, path }`). Runs are bounded so the file takes a few seconds.
 */
const PARAMS = { seed: 10_010, numRuns: 150, endOnFailure: true } as const;

const ctx = { namespace: 'default' };
const CURRENT = '<current>';

/** A custom kind with typed fields, a merge-keyed list (strategic merge), a map of strings and a field that keeps anything. */
const Thing = defineResource({
  group: 'example.kapi.dev',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z
      .object({
        size: z.int().min(0).optional(),
        labels: z.record(z.string(), z.string()).optional(),
        ports: listMap(z.array(z.object({ name: z.string(), port: z.int().optional() })), ['name']).optional(),
        extra: z.looseObject({}).optional(),
      })
      .optional(),
  }),
  selectableFields: [{ jsonPath: '.spec.size' }],
});

// ------------------------------------------------------------------------------------------------ arbitraries

/** Keys a JS object gets wrong when it is not treated as data, the directives of a strategic merge patch, and strings. */
const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_KEYS) },
  fc.constantFrom('$patch', '$retainKeys', '$setElementOrder/ports', '$deleteFromPrimitiveList/x', 'spec', 'data', 'metadata', 'size'),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const configKey = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ODD_KEYS) }, fc.stringMatching(/^[-._a-zA-Z0-9]{1,12}$/));

/** Numbers JSON can carry that are easy to get wrong: -0, the largest doubles, beyond 2^53, tiny fractions. */
const oddNumber = fc.oneof(
  fc.constantFrom(-0, 0, 1, -1, 1e308, -1e308, 5e-324, 2 ** 53 + 2, -(2 ** 63), 2 ** 64, 0.1, 1.5),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  oddNumber,
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

/** An object built with own keys only ("__proto__" included), as JSON.parse builds one. */
function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) setOwn(o, k, v);
  return o;
}

const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'json' },
    { weight: 3, arbitrary: scalar },
    fc.array(tie('json'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('json')), { maxLength: 5 }).map(objectOf),
  ),
}));

/**
 * Objects nested `depth` levels: shallow, deep, and beyond the decoder's limit. The deepest accepted one, placed where
 * bodies put values (at most three levels down: a JSON patch's list and operation, or spec.extra), still fits within
 * the decoder's 10,000 levels, so it travels the whole way: decode, validation, patches, storage and encoding.
 */
const nesting = fc.constantFrom(2, 50, MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH + 1, 30_000);
function nest(depth: number, inner: unknown = 'x'): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = { a: v };
  // fast-check prints a counterexample recursively; this one prints as the call that made it.
  Object.defineProperty(v, fc.toStringMethod, { value: () => `nest(${depth})` });
  return v;
}
const maybeDeep = fc.oneof(
  { weight: 6, arbitrary: json },
  nesting.map((d) => nest(d)),
);

/** A ConfigMap body: mostly well formed, with odd keys in its maps; sometimes wrong types anywhere. */
const configMapBody = fc
  .record(
    {
      apiVersion: fc.oneof(fc.constant('v1'), scalar),
      kind: fc.oneof(fc.constant('ConfigMap'), fc.constant('Secret'), scalar),
      metadata: fc.oneof(
        {
          weight: 5,
          arbitrary: fc.record(
            { name: fc.constant('cm'), labels: fc.dictionary(configKey, fc.string({ maxLength: 5 })) },
            { requiredKeys: ['name'] },
          ),
        },
        json,
      ),
      data: fc.oneof(
        { weight: 4, arbitrary: fc.array(fc.tuple(configKey, fc.string({ maxLength: 8 })), { maxLength: 6 }).map(objectOf) },
        maybeDeep,
      ),
      binaryData: fc.oneof(fc.array(fc.tuple(configKey, fc.constantFrom('eA==', 'AAEC', '!!', '')), { maxLength: 3 }).map(objectOf), json),
      extra: maybeDeep,
    },
    { requiredKeys: ['metadata'] },
  )
  .map((b) => {
    // "extra" stands for any unknown top-level field, under an odd name.
    const { extra, ...rest } = b as Record<string, unknown>;
    const out = objectOf(Object.entries(rest));
    if (extra !== undefined) setOwn(out, '__proto__', extra);
    return out;
  });

/** A JSON patch operation: valid ops and paths through odd keys, or anything at all. */
const pointer = fc
  .array(fc.oneof(key, fc.constantFrom('spec', 'extra', 'labels', 'ports', '0', '-', '1')), { maxLength: 4 })
  .map((tokens) => tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''));
const jsonPatchOp = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      { op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'), path: pointer, from: pointer, value: maybeDeep },
      { requiredKeys: ['op', 'path'] },
    ),
  },
  json,
);
/** A spec the schema mostly accepts: odd keys in its map and in the field that keeps anything, sometimes a wrong type. */
const plausibleSpec = fc
  .record(
    {
      size: fc.oneof({ weight: 4, arbitrary: fc.nat(9) }, scalar),
      labels: fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .array(fc.tuple(configKey, fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null))), { maxLength: 4 })
            .map(objectOf),
        },
        json,
      ),
      ports: fc.array(
        fc.oneof(
          {
            weight: 3,
            arbitrary: fc.record(
              {
                name: fc.constantFrom('a', 'b', '__proto__', 'constructor'),
                port: fc.nat(9),
                $patch: fc.constantFrom('delete', 'replace', 'merge', 'x'),
              },
              { requiredKeys: ['name'] },
            ),
          },
          json,
        ),
        { maxLength: 3 },
      ),
      extra: maybeDeep,
      $retainKeys: fc.option(fc.constantFrom(['size', 'labels', 'ports', 'extra'], ['extra'], 'x'), { nil: undefined, freq: 4 }),
      '$setElementOrder/ports': fc.option(fc.array(fc.record({ name: fc.constantFrom('a', 'b', '__proto__') }), { maxLength: 2 }), {
        nil: undefined,
        freq: 4,
      }),
    },
    { requiredKeys: ['$retainKeys', '$setElementOrder/ports'] },
  )
  .map((r) => objectOf(Object.entries(r)));
const pluck = (o: object, keys: readonly string[]): Record<string, unknown> =>
  objectOf(Object.entries(o).filter(([k]) => !keys.includes(k)));

const patchFor: Record<PatchType, fc.Arbitrary<unknown>> = {
  json: fc.oneof({ weight: 5, arbitrary: fc.array(jsonPatchOp, { maxLength: 4 }) }, json),
  merge: fc.oneof(
    // Directives mean nothing to a merge patch: they are unknown fields.
    { weight: 5, arbitrary: plausibleSpec.map((spec) => ({ spec: pluck(spec, ['$retainKeys', '$setElementOrder/ports', 'ports']) })) },
    fc.record({ spec: maybeDeep, metadata: json }, { requiredKeys: [] }).map((r) => objectOf(Object.entries(r))),
    json,
  ),
  strategic: fc.oneof(
    { weight: 5, arbitrary: plausibleSpec.map((spec) => ({ spec })) },
    fc
      .record({ spec: maybeDeep, metadata: json, $patch: fc.constantFrom('replace', 'delete', 'merge') }, { requiredKeys: [] })
      .map((r) => objectOf(Object.entries(r))),
    json,
  ),
  apply: json,
};

// ------------------------------------------------------------------------------------------------ checks

/** Runs a call that must succeed or fail with a 4xx StatusError; anything else fails the property. */
async function settle<T>(call: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: StatusError }> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    if (err instanceof StatusError && err.status.code !== undefined && err.status.code >= 400 && err.status.code < 500)
      return { ok: false, error: err };
    throw err;
  }
}

/** The object as its JSON encoding (what a client reads). */
const encoded = (o: unknown): string => stringifyJson(o);
/** Whether JSON text decodes to `o` (compared at any depth: vitest's toEqual recurses per level). */
const decodesTo = (text: string, o: unknown): boolean => jsonEqual(JSON.parse(text), o);

function configMapStore() {
  return new Store(ConfigMap, { storage: new MemoryStorage({ compaction: false }) });
}

describe('adversarial input through the Store (property-based)', () => {
  it('create: success or a 4xx; what is stored is what was sent, odd keys included, and encodes back to it', async () => {
    await fc.assert(
      fc.asyncProperty(configMapBody, fc.boolean(), async (body, asText) => {
        const store = configMapStore();
        const res = await settle(() => store.create(ctx, asText ? stringifyJson(body) : (body as KubeObject)));
        if (!res.ok) {
          expect((await store.list(ctx)).items).toEqual([]);
          return;
        }
        const stored = await store.get(ctx, 'cm');
        expect(encoded(stored)).toBe(encoded(res.value.object));
        expect(decodesTo(encoded(stored), stored)).toBe(true);
        // Map keys round-trip exactly, in order, whatever their names.
        expect(encoded(stored.data ?? {})).toBe(encoded(body.data ?? {}));
        expect(encoded(stored.metadata.labels ?? {})).toBe(encoded((body.metadata as KubeObject['metadata']).labels ?? {}));
        expect(Object.getPrototypeOf(stored.data ?? {})).toBe(Object.prototype);
      }),
      PARAMS,
    );
    expect(Object.prototype).not.toHaveProperty('a');
  });

  it('patch (json, merge, strategic): success or a 4xx; a refused patch leaves the stored object byte-for-byte', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage({ compaction: false }) });
    const base = JSON.parse(
      '{"metadata":{"name":"t","labels":{"app":"p"}},"spec":{"size":1,"labels":{"constructor":"c","__proto__":"l"},"ports":[{"name":"a","port":1},{"name":"__proto__"}],"extra":{"__proto__":{"prototype":[1]}}}}',
    ) as KubeObject;
    await store.create(ctx, base);
    const type = fc.constantFrom<PatchType>('json', 'merge', 'strategic');
    await fc.assert(
      fc.asyncProperty(
        type.chain((t) => fc.tuple(fc.constant(t), patchFor[t])),
        async ([t, patch]) => {
          const before = encoded(await store.get(ctx, 't'));
          const res = await settle(() => store.patch(ctx, 't', patch, t));
          const after = await store.get(ctx, 't');
          if (!res.ok) {
            expect(encoded(after)).toBe(before);
            return;
          }
          expect(encoded(after)).toBe(encoded(res.value.object));
          expect(decodesTo(encoded(after), after)).toBe(true);
          // Restore the base for the next run (a merge patch can only add to maps; a JSON patch replaces).
          await store.patch(
            ctx,
            't',
            [
              { op: 'add', path: '/spec', value: base.spec },
              { op: 'add', path: '/metadata/labels', value: base.metadata.labels },
            ],
            'json',
          );
        },
      ),
      PARAMS,
    );
    expect(Object.prototype).not.toHaveProperty('a');
  });

  it('update: success or a 4xx; a refused update leaves the stored object byte-for-byte, an accepted one is what is read back', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage({ compaction: false }) });
    await store.create(ctx, '{"metadata":{"name":"t"},"spec":{"size":1,"labels":{"__proto__":"l"}}}');
    const body = fc
      .record(
        {
          apiVersion: fc.oneof({ weight: 4, arbitrary: fc.constant('example.kapi.dev/v1') }, scalar),
          kind: fc.oneof({ weight: 4, arbitrary: fc.constant('Thing') }, scalar),
          metadata: fc.oneof(
            {
              weight: 5,
              arbitrary: fc.record(
                {
                  name: fc.oneof({ weight: 8, arbitrary: fc.constant('t') }, fc.constantFrom('u', '__proto__')),
                  // CURRENT stands for the stored object's resourceVersion, filled in when the body is sent.
                  resourceVersion: fc.oneof({ weight: 8, arbitrary: fc.constant(CURRENT) }, fc.constantFrom('1', '999', 'x')),
                },
                { requiredKeys: ['name'] },
              ),
            },
            json,
          ),
          spec: fc.oneof(
            { weight: 3, arbitrary: plausibleSpec.map((sp) => pluck(sp, ['$retainKeys', '$setElementOrder/ports'])) },
            maybeDeep,
          ),
          status: maybeDeep,
        },
        { requiredKeys: ['metadata'] },
      )
      .map((r) => objectOf(Object.entries(r)));
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (b, asText) => {
        const current = await store.get(ctx, 't');
        const before = encoded(current);
        const meta = b.metadata as Record<string, unknown> | undefined;
        if (meta?.resourceVersion === CURRENT) meta.resourceVersion = current.metadata.resourceVersion;
        const res = await settle(() => store.update(ctx, 't', asText ? stringifyJson(b) : (b as KubeObject)));
        if (meta && current.metadata.resourceVersion === meta.resourceVersion) meta.resourceVersion = CURRENT;
        const after = await store.get(ctx, 't');
        if (!res.ok) {
          expect(encoded(after)).toBe(before);
          return;
        }
        expect(encoded(after)).toBe(encoded(res.value.object));
        const labels = (b.spec as { labels?: unknown } | undefined)?.labels;
        // Accepted labels are stored as sent, a null value as Go decodes it into a map of strings: "".
        const decoded =
          typeof labels === 'object' && labels !== null
            ? Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, v === null ? '' : v]))
            : labels;
        if (res.value.object.metadata.resourceVersion !== JSON.parse(before).metadata.resourceVersion && labels)
          expect(encoded((after.spec as { labels?: unknown }).labels)).toBe(encoded(decoded));
      }),
      PARAMS,
    );
  });

  it('a merge patch setting odd keys of a map stores exactly those keys', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(configKey, fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null))), { maxLength: 6 }),
        async (entries) => {
          const store = configMapStore();
          await store.create(ctx, '{"metadata":{"name":"cm"},"data":{"__proto__":"0","constructor":"0","k":"0"}}');
          const before = encoded(await store.get(ctx, 'cm'));
          const patched = await settle(() => store.patch(ctx, 'cm', { data: objectOf(entries) }, 'merge'));
          if (!patched.ok) {
            // Only a key ConfigMaps refuse ("." or ".."): refused whole.
            expect(patched.error.status.code).toBe(422);
            expect(encoded(await store.get(ctx, 'cm'))).toBe(before);
            return;
          }
          const res = patched.value;
          const want = objectOf([
            ['__proto__', '0'],
            ['constructor', '0'],
            ['k', '0'],
          ]);
          for (const [k, v] of entries) {
            if (v === null) delete want[k];
            else setOwn(want, k, v);
          }
          expect(Object.keys(res.object.data ?? {}).sort()).toEqual(Object.keys(want).sort());
          for (const k of Object.keys(want)) expect(Object.hasOwn(res.object.data ?? {}, k) && res.object.data?.[k]).toBe(want[k]);
        },
      ),
      PARAMS,
    );
  });

  it('list: label and field selectors, limits, continue tokens and resourceVersions give results or a 4xx', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage({ compaction: false }) });
    for (let i = 0; i < 5; i++)
      await store.create(ctx, { metadata: { name: `t${i}`, labels: { app: `a${i % 2}` } }, spec: { size: i } } as KubeObject);
    const validLabels = fc.constantFrom(
      '',
      'app=a0',
      'app!=a1',
      'app in (a0,a1)',
      '!app',
      'app,app notin (x)',
      'x>1',
      'constructor=__proto__',
    );
    const validFields = fc.constantFrom('', 'metadata.name=t1', 'metadata.namespace==default', 'spec.size!=2', 'metadata.name=t\\,1');
    const firstPage = await store.list(ctx, { limit: 2 });
    const realToken = firstPage.metadata.continue ?? '';
    const selectorText = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc
        .array(
          fc.oneof(
            fc.constantFrom(
              'app',
              '!app',
              '=',
              '==',
              '!=',
              ',',
              ' in ',
              ' notin ',
              '(',
              ')',
              '>',
              '<',
              '1',
              'a0',
              '__proto__',
              'metadata.name',
              'spec.size',
              '\\',
              'é',
            ),
          ),
          { maxLength: 8 },
        )
        .map((parts) => parts.join('')),
    );
    const continueToken = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('', realToken) },
      fc.string({ maxLength: 10 }),
      fc
        .record({
          v: fc.oneof(fc.constant('meta.k8s.io/v1'), scalar),
          rv: fc.oneof(fc.integer({ min: -2, max: 10 }), scalar),
          start: fc.oneof(fc.constantFrom('t1\u0000', '../x', '', '__proto__'), scalar),
        })
        .map((c) => Buffer.from(JSON.stringify(c)).toString('base64url')),
    );
    // Beyond the current revision a read is a 504 Timeout (ResourceVersionTooLarge), as in kube; the property keeps to RVs it has.
    const rv = fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom('', '0', '5') },
      fc.constantFrom('', '0', '1', '3', '-1', '01', 'abc', '1e2', ' 1', '18446744073709551616'),
      fc.string({ maxLength: 4 }).filter((s) => !/^\d+$/.test(s) || Number(s) <= 5),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            labelSelector: fc.oneof({ weight: 8, arbitrary: validLabels }, selectorText),
            fieldSelector: fc.oneof({ weight: 8, arbitrary: validFields }, selectorText),
            limit: fc.oneof(fc.integer({ min: -1, max: 6 }), fc.constant(Number.NaN)),
            continue: fc.option(continueToken, { nil: undefined, freq: 2 }),
            resourceVersion: rv,
            resourceVersionMatch: fc.option(fc.constantFrom('Exact', 'NotOlderThan', 'bogus') as fc.Arbitrary<'Exact'>, {
              nil: undefined,
              freq: 3,
            }),
          },
          { requiredKeys: ['continue', 'resourceVersionMatch'] },
        ),
        async (opts) => {
          const res = await settle(() => store.list(ctx, opts));
          if (res.ok) for (const item of res.value.items) expect(item.metadata.name).toMatch(/^t\d$/);
          const one = await settle(() => store.get(ctx, 't1', { resourceVersion: opts.resourceVersion ?? '' }));
          if (one.ok) expect(one.value.metadata.name).toBe('t1');
        },
      ),
      PARAMS,
    );
  });
});

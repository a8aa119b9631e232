import { copyJson, type KubeObject, MAX_JSON_DEPTH, stringifyJson } from '@kapi/apimachinery';
import { expect } from 'vitest';
import { rvOf, type SuiteContext, type Test } from './harness.ts';

/** `{"a":{"a":…{leaf}…}}`, `depth` objects deep; built in a loop, since a recursive builder would overflow. */
function nested(depth: number, leaf: Record<string, unknown> = {}): Record<string, unknown> {
  let v = leaf;
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
}

/** The spec of `o` as JSON text: vitest's toEqual recurses per level, and these values are too deep for it. */
const specText = (o: KubeObject | null | undefined): string => stringifyJson((o as { spec?: unknown } | null)?.spec);

export function deepNestingTests(ctx: SuiteContext, test: Test): void {
  // kube's decoder admits JSON nested up to 10,000 levels; storage must then hold whatever got through, although
  // V8's own recursive walks (JSON.stringify, structuredClone) give up thousands of levels earlier.
  test('an object nested 10,000 levels (the deepest a request may be) is created, read, listed, watched, updated and deleted', async () => {
    // The object itself is one level, its spec the other 9,999.
    const spec = nested(MAX_JSON_DEPTH - 1);
    const want = stringifyJson(spec);
    const w = ctx.watch(ctx.dir(), { resourceVersion: String(await ctx.rev()) });

    const created = await ctx.s.create(ctx.key('deep'), { ...ctx.obj('deep'), spec });
    expect(specText(created)).toBe(want);
    const got = await ctx.s.get(ctx.key('deep'));
    expect(rvOf(got)).toBe(rvOf(created));
    expect(specText(got)).toBe(want);
    const listed = await ctx.s.list(ctx.dir());
    expect(listed.items.map(specText)).toEqual([want]);
    const added = await w.next('ADDED of the deep object');
    expect(added.type).toBe('ADDED');
    expect(specText(added.object as KubeObject)).toBe(want);

    // An update that changes nothing is found equal (no write) however deep the object is.
    const same = await ctx.s.guaranteedUpdate(ctx.key('deep'), (cur) => copyJson(cur as KubeObject));
    expect(rvOf(same)).toBe(rvOf(created));

    // A change at the bottom of the nesting is a write.
    const spec2 = nested(MAX_JSON_DEPTH - 1, { n: 2 });
    const want2 = stringifyJson(spec2);
    const updated = await ctx.s.guaranteedUpdate(ctx.key('deep'), (cur) => ({ ...(cur as KubeObject), spec: spec2 }));
    expect(rvOf(updated)).toBeGreaterThan(rvOf(created));
    expect(specText(updated)).toBe(want2);
    expect(specText(await ctx.s.get(ctx.key('deep')))).toBe(want2);
    const modified = await w.next('MODIFIED of the deep object');
    expect(modified.type).toBe('MODIFIED');
    expect(specText(modified.object as KubeObject)).toBe(want2);

    const deleted = await ctx.s.delete(ctx.key('deep'));
    expect(specText(deleted)).toBe(want2);
    const gone = await w.next('DELETED of the deep object');
    expect(gone.type).toBe('DELETED');
    expect(specText(gone.object as KubeObject)).toBe(want2);
  });
}

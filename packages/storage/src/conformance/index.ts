import { afterEach, beforeEach, describe } from 'vitest';
import { countTests } from './count.ts';
import { createTests } from './create.ts';
import { deepNestingTests } from './deep-nesting.ts';
import { deleteTests } from './delete.ts';
import { getTests } from './get.ts';
import { type ConformanceFactory, type ConformanceOptions, makeTest, resolveOptions, SuiteContext, testTimeout } from './harness.ts';
import { keyTests } from './keys.ts';
import { listTests } from './list.ts';
import { storageKeyTests } from './storage-key.ts';
import { updateTests } from './update.ts';
import { watchTests } from './watch.ts';

export type { ConformanceFactory, ConformanceHarness, ConformanceOptions } from './harness.ts';
export { readWatch } from './read-watch.ts';

/**
 * Registers the shared storage conformance suite (vitest `describe`/`it`) for one backend. Every backend — memory,
 * etcd, Redis, and a watch cache in front of any of them — runs it from its own tests; a behaviour the suite checks
 * holds on all of them (see SEMANTICS.md). The factory runs before every case and must return a fresh harness;
 * `close()` runs after it. All keys the suite touches live under `resourcePrefix`.
 *
 * @param name     Shown in the test names (e.g. "MemoryStorage").
 * @param factory  Builds the storage under test and its controls (compact, elapse, close).
 * @param options  `cache` for a watch cache (tolerates its own bookmarks and history), timeouts for slow backends.
 *
 * @example
 * ```ts
 * // packages/storage/src/memory/memory-storage.conformance.test.ts
 * import { FakeClock } from '@kapi/apimachinery';
 * import { runStorageConformance } from '@kapi/storage/conformance';
 * import { MemoryStorage } from '@kapi/storage';
 *
 * runStorageConformance('MemoryStorage', async () => {
 *   const clock = new FakeClock();
 *   const storage = new MemoryStorage({ clock, progressNotifyIntervalMs: 100 });
 *   return {
 *     storage,
 *     resourcePrefix: '/registry/widgets',
 *     compact: (rev) => storage.compact(rev),
 *     elapse: async (ms) => {
 *       clock.advance(ms);
 *       await new Promise((r) => setImmediate(r));
 *     },
 *     close: () => storage.close(),
 *   };
 * });
 * ```
 */
export function runStorageConformance(name: string, factory: ConformanceFactory, options: ConformanceOptions = {}): void {
  const opts = resolveOptions(options);
  const ctx = new SuiteContext(opts);
  const test = makeTest(opts);
  describe(`storage conformance: ${name}`, () => {
    beforeEach(async () => {
      ctx.attach(await factory());
    }, testTimeout(opts));
    afterEach(async () => {
      await ctx.detach();
    }, testTimeout(opts));

    describe('create', () => createTests(ctx, test));
    describe('get', () => getTests(ctx, test));
    describe('list', () => listTests(ctx, test));
    describe('guaranteedUpdate', () => updateTests(ctx, test));
    describe('delete', () => deleteTests(ctx, test));
    describe('count and currentResourceVersion', () => countTests(ctx, test));
    describe('keys', () => keyTests(ctx, test));
    describe('watch', () => watchTests(ctx, test));
    describe('storage keys of returned objects', () => storageKeyTests(ctx, test));
    describe('deep nesting', () => deepNestingTests(ctx, test));
  });
}

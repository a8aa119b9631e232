import type { Clock, FakeClock } from '@kapi/apimachinery';
import { startTestServer, type TestServer, type TestServerOptions } from './start-test-server.ts';

/** A test framework's hook registrar: vitest's and jest's beforeAll/afterEach…, node:test's before/after…. */
export type Hook = (fn: () => Promise<void>) => unknown;

/**
 * The hooks useTestServer registers in: `beforeAll` and `afterAll` for one server per file (isolation `'file'`, the
 * default), `beforeEach` and `afterEach` for one per test (`'test'`). Passed in rather than imported, so the package
 * loads no test framework and works with any of them.
 */
export interface TestHooks {
  beforeAll?: Hook;
  afterAll?: Hook;
  beforeEach?: Hook;
  afterEach?: Hook;
  /** Default `'file'` when beforeAll or afterAll is given, else `'test'`. */
  isolation?: 'file' | 'test';
}

/** The server of the running test: every field reads the server started for it (an error outside a test). */
export type TestServerHandle<C extends Clock = FakeClock> = TestServer<C>;

/**
 * Starts a test server before the file's (or each) test and stops it after, e.g. in vitest
 * `const kapi = useTestServer({ beforeAll, afterAll })` then `kapi.kubeConfig` inside the tests.
 */
export function useTestServer<C extends Clock = FakeClock>(hooks: TestHooks, options: TestServerOptions<C> = {}): TestServerHandle<C> {
  const isolation = hooks.isolation ?? (hooks.beforeAll || hooks.afterAll ? 'file' : 'test');
  const [before, after] = isolation === 'file' ? [hooks.beforeAll, hooks.afterAll] : [hooks.beforeEach, hooks.afterEach];
  if (!before || !after)
    throw new Error(
      isolation === 'file'
        ? "useTestServer with isolation 'file' needs beforeAll and afterAll (node:test: before and after)"
        : "useTestServer with isolation 'test' needs beforeEach and afterEach",
    );
  let current: TestServer<C> | undefined;
  before(async () => {
    current = await startTestServer(options);
  });
  after(async () => {
    const stopping = current;
    current = undefined;
    await stopping?.stop();
  });
  const running = (): TestServer<C> => {
    if (!current) throw new Error('the test server runs only inside the tests (between its before and after hooks)');
    return current;
  };
  return {
    get url() {
      return running().url;
    },
    get kubeconfigPath() {
      return running().kubeconfigPath;
    },
    get kubeConfig() {
      return running().kubeConfig;
    },
    get faults() {
      return running().faults;
    },
    get token() {
      return running().token;
    },
    get storage() {
      return running().storage;
    },
    get clock() {
      return running().clock;
    },
    get server() {
      return running().server;
    },
    stop: () => running().stop(),
  };
}

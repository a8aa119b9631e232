import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from './start-test-server.ts';
import { useTestServer } from './use-test-server.ts';

async function configMapNames(s: TestServer): Promise<string[]> {
  const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`);
  return ((await res.json()) as { items: { metadata: { name: string } }[] }).items.map((c) => c.metadata.name);
}

async function createConfigMap(s: TestServer, name: string): Promise<void> {
  const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ metadata: { name } }),
  });
  expect(res.status).toBe(201);
}

describe("useTestServer, isolation 'file': one server for the file's tests", () => {
  const kapi = useTestServer({ beforeAll, afterAll });
  let firstURL = '';
  it('first test writes', async () => {
    firstURL = kapi.url;
    await createConfigMap(kapi, 'shared');
  });
  it('second test sees the same server and what the first wrote', async () => {
    expect(kapi.url).toBe(firstURL);
    expect(await configMapNames(kapi)).toEqual(['shared']);
  });
});

describe("useTestServer, isolation 'test': a fresh server per test", () => {
  const kapi = useTestServer({ beforeEach, afterEach });
  for (const name of ['one', 'two'])
    it(`test ${name} starts empty`, async () => {
      expect(await configMapNames(kapi)).toEqual([]);
      await createConfigMap(kapi, name);
      expect(await configMapNames(kapi)).toEqual([name]);
    });
});

describe('useTestServer outside its hooks', () => {
  it('says which hooks it needs, and that the server exists only inside the tests', () => {
    expect(() => useTestServer({ beforeAll })).toThrow("isolation 'file' needs beforeAll and afterAll");
    expect(() => useTestServer({ beforeAll, afterAll, isolation: 'test' })).toThrow("isolation 'test' needs beforeEach and afterEach");
    const idle = useTestServer({ beforeAll: () => {}, afterAll: () => {} });
    expect(() => idle.url).toThrow('only inside the tests');
  });
});

describe('useTestServer under node:test', () => {
  it('runs a node --test file with before/after (per file) and beforeEach/afterEach (per test)', { timeout: 60_000 }, async () => {
    const file = fileURLToPath(new URL('./test-support/node-test-style.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@kapi/source', '--test', '--test-reporter=tap', file], {
      timeout: 30_000,
    });
    expect(stdout).toMatch(/# pass 4\b/);
    expect(stdout).toMatch(/# fail 0\b/);
  });
});

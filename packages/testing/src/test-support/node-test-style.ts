// Run by use-test-server.test.ts with `node --test`: useTestServer with node:test's hooks.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { useTestServer } from '../use-test-server.ts';

async function names(url: string): Promise<string[]> {
  const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`);
  return ((await res.json()) as { items: { metadata: { name: string } }[] }).items.map((c) => c.metadata.name);
}

async function create(url: string, name: string): Promise<void> {
  const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ metadata: { name } }),
  });
  assert.equal(res.status, 201);
}

describe('per file', () => {
  const kapi = useTestServer({ beforeAll: before, afterAll: after });
  it('writes', async () => create(kapi.url, 'shared'));
  it('reads what the first test wrote', async () => assert.deepEqual(await names(kapi.url), ['shared']));
});

describe('per test', () => {
  const kapi = useTestServer({ beforeEach, afterEach });
  for (const name of ['one', 'two'])
    it(`starts empty (${name})`, async () => {
      assert.deepEqual(await names(kapi.url), []);
      await create(kapi.url, name);
    });
});

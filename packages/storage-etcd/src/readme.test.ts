import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EtcdServer, startEtcd } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-snippet.ts';

// The snippet reads ETCD_ENDPOINT: point it at an etcd of our own.
let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd();
  process.env.ETCD_ENDPOINT = etcd.endpoint;
});
afterAll(async () => {
  delete process.env.ETCD_ENDPOINT;
  await etcd?.stop();
});

describe('README example', () => {
  it('imports from the package name, runs, and prints exactly what its "// →" comments say', async () => {
    const { code, printed, expected } = await runReadmeExample(join(dirname(fileURLToPath(import.meta.url)), '..'));
    expect(code).toContain("from '@kapi/storage-etcd'");
    expect(expected.length).toBeGreaterThan(3);
    expect(printed).toEqual(expected);
  });
});

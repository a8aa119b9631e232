import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-snippet.ts';

// The example loads client-node and starts a server: seconds on a busy machine.
const TIMEOUT = { timeout: 30_000 };

describe('README example', () => {
  it('imports from the package name, runs, and prints exactly what its "// →" comments say', TIMEOUT, async () => {
    const { code, printed, expected } = await runReadmeExample(join(dirname(fileURLToPath(import.meta.url)), '..'));
    expect(code).toContain("from '@kapi/testing'");
    expect(expected.length).toBe(3);
    expect(printed).toEqual(expected);
  });
});

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-snippet.ts';

describe('README example', () => {
  it('imports from the package name, runs, and prints exactly what its "// →" comments say', async () => {
    const { code, printed, expected } = await runReadmeExample(join(dirname(fileURLToPath(import.meta.url)), '..'));
    expect(code).toContain("from '@kapi/aggregator'");
    expect(expected.length).toBeGreaterThan(2);
    expect(printed).toEqual(expected);
  });
});

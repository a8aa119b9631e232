import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMarkdownExample } from '../../../scripts/readme-snippet.ts';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('docs/guide-custom-control-plane.md', () => {
  it('its example runs and prints exactly what its "// →" comments say', async () => {
    const { code, printed, expected } = await runMarkdownExample(join(packageDir, '../../docs/guide-custom-control-plane.md'), packageDir);
    expect(code).toContain("from '@kapi/server-core'");
    expect(expected.length).toBeGreaterThan(5);
    expect(printed).toEqual(expected);
  });
});

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMarkdownExample } from '../../../../scripts/readme-snippet.ts';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('docs/guide-admission-plugins.md', () => {
  it('its example runs in a real server and prints exactly what its "// →" comments say', async () => {
    const { code, printed, expected } = await runMarkdownExample(join(packageDir, '../../docs/guide-admission-plugins.md'), packageDir);
    expect(code).toContain("from '@kapi/admission'");
    expect(expected.length).toBe(5);
    expect(printed).toEqual(expected);
  });
});

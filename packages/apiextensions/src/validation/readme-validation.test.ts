import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMarkdownExample } from '../../../../scripts/readme-snippet.ts';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('README ## Validation snippet', () => {
  it('imports from the package name, runs, and prints exactly what its "// →" comments say', async () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Validation'));
    // runMarkdownExample runs the first ts block under "## Example": hand it this section under that heading.
    const dir = mkdtempSync(join(packageDir, '.readme-validation-'));
    try {
      const md = join(dir, 'validation.md');
      writeFileSync(md, `## Example\n${section.slice(section.indexOf('```ts'))}`);
      const { code, printed, expected } = await runMarkdownExample(md, packageDir);
      expect(code).toContain("from '@kapi/apiextensions'");
      expect(expected.length).toBe(5);
      expect(printed).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMarkdownExample } from '../../../../scripts/readme-snippet.ts';

describe('README ## CustomResourceDefinition snippet', () => {
  it('runs and prints exactly what its "// →" comments say', async () => {
    const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## CustomResourceDefinition'));
    const block = /```ts\n[\s\S]*?\n```/.exec(section)?.[0];
    expect(block).toBeDefined();
    // runMarkdownExample runs the block under "## Example": hand it this section's block under that heading.
    const dir = mkdtempSync(join(tmpdir(), 'crd-readme-'));
    try {
      const md = join(dir, 'README.md');
      writeFileSync(md, `## Example\n\n${block}\n`);
      const { code, printed, expected } = await runMarkdownExample(md, packageDir);
      expect(code).toContain("from '@kapi/apiextensions'");
      expect(expected.length).toBeGreaterThan(3);
      expect(printed).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

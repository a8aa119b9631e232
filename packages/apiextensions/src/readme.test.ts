import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMarkdownExample } from '../../../scripts/readme-snippet.ts';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
// Every `## Example…` section of the README, each run on its own (runMarkdownExample runs the first `## Example`).
const sections = readme
  .split(/^(?=## )/mu)
  .filter((s) => s.startsWith('## Example'))
  .map((s) => [s.slice(3, s.indexOf('\n')), s] as const);
const dir = mkdtempSync(join(tmpdir(), 'apiextensions-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README examples', () => {
  it('has the chain example and the structural-schema example', () => {
    expect(sections.map(([title]) => title)).toEqual(['Example: CRDs served at run time', 'Example']);
  });

  it.each(sections)(
    '%s: imports from the package name, runs, and prints exactly what its "// →" comments say',
    async (title, section) => {
      const file = join(dir, `${sections.findIndex(([t]) => t === title)}.md`);
      writeFileSync(file, section);
      const { code, printed, expected } = await runMarkdownExample(file, packageDir);
      expect(code).toContain("from '@kapi/apiextensions'");
      expect(expected.length).toBeGreaterThan(3);
      expect(printed).toEqual(expected);
    },
    // The chain example loads and starts servers: seconds on a busy machine.
    30_000,
  );
});

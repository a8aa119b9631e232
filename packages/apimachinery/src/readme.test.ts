import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { describe, expect, it, vi } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The README's example: the first ```ts block under "## Example". */
function readmeSnippet(): string {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Example'));
  const match = /```ts\n([\s\S]*?)\n```/.exec(section);
  if (!match?.[1]) throw new Error('README.md has no ```ts block under "## Example"');
  return match[1];
}

describe('README example', () => {
  it('imports from the package name', () => {
    expect(readmeSnippet()).toContain("from '@kapi/apimachinery'");
  });

  it('runs, and prints exactly what its "// →" comments say', async () => {
    const code = readmeSnippet();
    const expected = code
      .split('\n')
      .map((line) => /\/\/ → (.*)$/.exec(line)?.[1])
      .filter((s): s is string => s !== undefined);
    expect(expected.length).toBeGreaterThan(5);

    // Written beside the package (outside src/, so tsc never sees it) so that '@kapi/apimachinery'
    // resolves through the workspace exactly as it does for a user.
    const dir = mkdtempSync(join(packageDir, '.readme-'));
    const file = join(dir, 'snippet.ts');
    writeFileSync(file, code);
    const printed: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      printed.push(format(...args));
    });
    try {
      await import(pathToFileURL(file).href);
    } finally {
      spy.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(printed).toEqual(expected);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { vi } from 'vitest';

export interface ExampleRun {
  code: string;
  printed: string[];
  expected: string[];
}

/**
 * Runs the first ```ts block under `## Example` in a package's README.md and returns what it printed next to what
 * its `// → …` comments say it prints. Dev-only: every package's readme.test.ts uses it, so every README snippet runs.
 */
export function runReadmeExample(packageDir: string): Promise<ExampleRun> {
  return runMarkdownExample(join(packageDir, 'README.md'), packageDir);
}

/**
 * Runs the first ```ts block under `## Example` of any markdown file (a docs/ guide) from `runDir`, a package folder
 * whose dependencies the snippet imports.
 */
export async function runMarkdownExample(markdownPath: string, runDir: string): Promise<ExampleRun> {
  const readme = readFileSync(markdownPath, 'utf8');
  const section = readme.slice(readme.indexOf('## Example'));
  const code = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!code) throw new Error(`${markdownPath} has no \`\`\`ts block under "## Example"`);
  const expected = code
    .split('\n')
    .map((line) => /\/\/ → (.*)$/.exec(line)?.[1])
    .filter((s): s is string => s !== undefined);
  // Written beside the package (outside src/, so tsc never sees it) so the package name resolves through the
  // workspace exactly as it does for a user.
  const dir = mkdtempSync(join(runDir, '.readme-'));
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
  return { code, printed, expected };
}

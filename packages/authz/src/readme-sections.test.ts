import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMarkdownExample } from '../../../scripts/readme-snippet.ts';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'authz-readme-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The first ```ts block under `## <heading>` of the README. */
function snippetUnder(heading: string): string {
  const at = readme.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const code = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))?.[1];
  if (!code) throw new Error(`README.md has no ts block under "## ${heading}"`);
  return code;
}

// Each section's snippet runs as the README's "## Example" does (scripts/readme-snippet.ts): from the package name,
// printing exactly what its "// →" comments say.
const SECTIONS = ['RBAC', 'Bootstrap policy', 'RBAC in a server', 'ABAC', 'Webhook authorizer', 'Graph authorizer', 'Authorization modes'];

describe.each(SECTIONS)('README section "%s"', (heading) => {
  it('imports from the package name, runs, and prints exactly what its "// →" comments say', async () => {
    const markdown = join(tmp, `${heading.replace(/\W/g, '-')}.md`);
    writeFileSync(markdown, `## Example\n\n\`\`\`ts\n${snippetUnder(heading)}\n\`\`\`\n`);
    const { code, printed, expected } = await runMarkdownExample(markdown, packageDir);
    expect(code).toContain("from '@kapi/authz'");
    expect(expected.length).toBeGreaterThan(2);
    expect(printed).toEqual(expected);
  });
});

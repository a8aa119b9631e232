import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';

/**
 * Runs the TypeScript of docs/guide-controller-testing.md and of this package's README section "A controller test in
 * ten lines". A block fenced ```ts file=NAME is a module the others import as ./NAME; ```ts test is a vitest test file,
 * collected here under its section's heading; ```ts test jest is a jest test file, run with vitest's functions as
 * jest's globals (the same API); ```ts test node is a node:test file, run by `node --test`. Other ```ts blocks
 * (an etcd or Redis storage, which need those servers) are not run.
 */
interface Block {
  source: string;
  heading: string;
  info: string;
  code: string;
}

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = [join(packageDir, '../../docs/guide-controller-testing.md'), join(packageDir, 'README.md')];

function blocksOf(source: string): Block[] {
  const markdown = readFileSync(source, 'utf8');
  const out: Block[] = [];
  let heading = '';
  // Every fenced block is consumed whole, so a `# comment` in a shell block is not taken for a heading.
  for (const m of markdown.matchAll(/^(#{1,4}) (.*)$|^```(\w*)(.*)\n([\s\S]*?)\n```$/gm)) {
    if (m[1]) heading = m[2] ?? '';
    else if (m[3] === 'ts') out.push({ source, heading, info: (m[4] ?? '').trim(), code: m[5] ?? '' });
  }
  return out;
}

const blocks = sources.flatMap(blocksOf);
// Beside the package (outside src/, so tsc never sees them), so '@kapi/testing' resolves through the workspace as it
// does for a user.
const dir = mkdtempSync(join(packageDir, '.guide-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
for (const b of blocks) {
  const file = /^file=(\S+)$/.exec(b.info)?.[1];
  if (file) writeFileSync(join(dir, file), b.code);
}

// jest's globals are vitest's functions of the same names.
const JEST_GLOBALS = { describe, it, test, expect, beforeAll, afterAll, beforeEach, afterEach };
const globals = globalThis as Record<string, unknown>;

let n = 0;
for (const b of blocks) {
  const kind = /^test(?: (jest|node))?$/.exec(b.info);
  if (!kind) continue;
  const path = join(dir, `snippet-${++n}.test.ts`);
  writeFileSync(path, b.code);
  if (kind[1] === 'node') {
    // Started now, awaited in its test: the child process loads Node and the server while the other snippets run.
    const run = promisify(execFile)(process.execPath, ['--conditions=@kapi/source', '--test', '--test-reporter=tap', path], {
      timeout: 30_000,
    }).then(
      (r) => r.stdout,
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    describe(`${b.heading} (node --test)`, () => {
      it('passes', { timeout: 30_000 }, async () => {
        const stdout = await run;
        expect(stdout).toMatch(/# fail 0\b/);
        expect(stdout).toMatch(/# pass [1-9]/);
      });
    });
    continue;
  }
  if (kind[1] === 'jest' && globals.expect === undefined) {
    // Set for the whole file (test bodies read them when they run), removed at its end.
    Object.assign(globals, JEST_GLOBALS);
    afterAll(() => {
      for (const name of Object.keys(JEST_GLOBALS)) delete globals[name];
    });
  }
  describe(kind[1] === 'jest' ? `${b.heading} (jest)` : b.heading, async () => {
    await import(pathToFileURL(path).href);
  });
}

describe('the guide', () => {
  it('runs every ts block of its own but the one that needs etcd and Redis', () => {
    const guide = blocks.filter((b) => b.source === sources[0]);
    const unrun = guide.filter((b) => !/^(file=\S+|test( jest| node)?)$/.test(b.info));
    expect(unrun.map((b) => b.heading)).toEqual(['Storage backends']);
    expect(new Set(guide.map((b) => b.info))).toEqual(new Set(['file=secret-controller.ts', 'test', 'test node', 'test jest', '']));
  });
});

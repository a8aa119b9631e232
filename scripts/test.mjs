#!/usr/bin/env node
// `npm test`: type-check and build declarations (`tsc -b`), type-check tests and benches (tsconfig.check.json), then run every package's tests with vitest,
// and close with one plain line, `N passed, N failed[, N skipped]`, computed from vitest's JSON report.
// Extra arguments go to vitest: `npm test -- --project storage`, `npm test -- packages/storage/src/x.test.ts`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Counts from a vitest JSON report (`--reporter=json`).
 * A test file that failed before any of its tests ran (an import or syntax error) has no failed test in
 * numFailedTests; it counts as one failure here, so the closing line never reads "0 failed" for a red run.
 */
export function summarize(report) {
  const passed = report.numPassedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  let failed = report.numFailedTests ?? 0;
  for (const file of report.testResults ?? []) {
    const results = file.assertionResults ?? [];
    if (file.status === 'failed' && !results.some((r) => r.status === 'failed')) failed += 1;
  }
  return { passed, failed, skipped };
}

export function summaryLine({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

function binOf(pkg, name) {
  const require = createRequire(join(root, 'package.json'));
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  return join(dirname(manifestPath), bin);
}

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.error) {
    console.error(result.error);
    return 1;
  }
  return result.status ?? 1; // null: killed by a signal
}

function main(extraArgs) {
  // 1. Declarations must compile, and tests, benches and scripts (which the builds leave out) must type-check.
  //    tsc prints its own diagnostics.
  //    Then lint and format (Biome), so the tree CI accepts is the tree `npm run lint` accepts.
  const checks = [
    ['tsc -b', [binOf('typescript', 'tsc'), '-b']],
    ['tsc -p tsconfig.check.json', [binOf('typescript', 'tsc'), '-p', 'tsconfig.check.json']],
    ['biome check', [binOf('@biomejs/biome', 'biome'), 'check', '.']],
  ];
  for (const [name, argv] of checks) {
    const status = run(argv);
    if (status !== 0) {
      console.error(`${name} failed (exit ${status})`);
      console.log(summaryLine({ passed: 0, failed: 1, skipped: 0 }));
      return 1;
    }
  }

  // 2. Tests: the default reporter to the terminal, the JSON reporter to a temporary file.
  const dir = mkdtempSync(join(tmpdir(), 'kapi-test-'));
  const jsonPath = join(dir, 'vitest.json');
  try {
    const vitestStatus = run([
      binOf('vitest', 'vitest'),
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${jsonPath}`,
      ...extraArgs,
    ]);

    let report;
    try {
      report = existsSync(jsonPath) ? JSON.parse(readFileSync(jsonPath, 'utf8')) : undefined;
    } catch (err) {
      console.error(`could not read vitest's JSON report: ${err.message}`);
    }
    if (!report) {
      console.error(`vitest exited ${vitestStatus} without a JSON report`);
      console.log(summaryLine({ passed: 0, failed: 1, skipped: 0 }));
      return 1;
    }

    const counts = summarize(report);
    // vitest can fail with every test green (an unhandled error, a failed hook outside a test): count it.
    if (vitestStatus !== 0 && counts.failed === 0) {
      console.error(`vitest exited ${vitestStatus} although no test failed`);
      counts.failed = 1;
    }
    console.log(summaryLine(counts));
    if (counts.passed + counts.failed === 0) {
      console.error('no test ran');
      return 1;
    }
    return vitestStatus !== 0 || counts.failed > 0 ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}

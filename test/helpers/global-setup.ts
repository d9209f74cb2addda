// Makes sure dist/ is built from the sources as they are, once per run, before the suites: CLI tests run the real
// binary from dist/, and servers started inside a test take their writer and checkpoint threads from dist/ too
// (src/store/threads.ts), not compiled anew through tsx each time. A dist/ newer than every source is used as it is
// (CI has just built it); a missing or stale one is rebuilt. Each vitest project runs its global setup in the one
// main process: the second must not rebuild (tsup empties dist/) under the first's tests.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { STORE_THREADS } from '../../src/store/threads.js';

/** What the build reads: a change to any of these (or a file added or removed under src/) makes dist/ stale. */
const INPUTS = ['src', 'tsup.config.ts', 'package.json', 'tsconfig.json'];

/** The newest modification time under `path`, folders included (removing a file touches its folder). */
function newest(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/** The oldest of the outputs the tests use (the CLI, the store's threads, the console's script), or 0 when one is missing. */
function oldestOutput(dist: string): number {
  const outputs = ['cli', ...STORE_THREADS, 'console/app'];
  return Math.min(...outputs.map((name) => statSync(join(dist, `${name}.js`), { throwIfNoEntry: false })?.mtimeMs ?? 0));
}

export function distIsFresh(root = process.cwd()): boolean {
  const built = oldestOutput(join(root, 'dist'));
  return built > 0 && INPUTS.every((input) => newest(join(root, input)) <= built);
}

function buildIfStale(): void {
  if (!distIsFresh()) execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js'], { stdio: 'ignore' });
}

export default function setup(project: TestProject): void {
  // In watch mode, sources edited since are built again before the tests rerun (no test runs meanwhile).
  project.onTestsRerun(buildIfStale);
  const dist = resolve('dist');
  // Set by the first project's setup (and inherited by test workers, and by `npm test` run inside a test).
  if (process.env.LEDGER_TEST_DIST === dist) return;
  buildIfStale();
  process.env.LEDGER_TEST_DIST = dist;
}

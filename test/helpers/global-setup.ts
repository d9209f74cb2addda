// Builds the CLI once before the suites, so CLI tests run the real binary from dist/. Each vitest project runs its
// global setup, in the one main process: the second must not rebuild (tsup empties dist/) under the first's tests.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  if (process.env.LEDGER_TEST_BUILT) return;
  execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js'], { stdio: 'ignore' });
  process.env.LEDGER_TEST_BUILT = '1';
}

// Tests in a real headless browser (the docs page; the console's later) run in Debian's chromium, driven by
// playwright-core. Without chromium such a test is skipped, saying how to enable it, except under CI (CI set, as CI
// sets it: CI=true), where a missing browser fails the run: a check that CI silently skips would look like a pass.
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';

/** The Chromium binary the browser tests drive. */
export const CHROMIUM = process.env.LEDGER_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** CI=true (or any value but false/0): the usual signal of a CI run. */
export const underCi = (env: NodeJS.ProcessEnv = process.env): boolean => {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== 'false' && value !== '0';
};

const HOW = 'apt-get install chromium, or set LEDGER_TEST_CHROMIUM to a Chromium binary';

/**
 * `describe`, for tests that need chromium: as it is when chromium is there; skipped (with a line saying why) when
 * it is not; and when it is not there under CI, one failing test in place of the suite.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  if (underCi()) {
    describe(name, () => {
      it('has chromium to run in', () => {
        throw new Error(`no chromium at ${CHROMIUM}, and CI is set: a browser test fails under CI rather than being skipped (${HOW})`);
      });
    });
    return;
  }
  console.log(`${name}: skipped, no chromium at ${CHROMIUM} (${HOW})`);
  describe.skip(name, body);
}

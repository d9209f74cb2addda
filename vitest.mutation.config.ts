// The tests that mutation testing runs (npm run test:mutation, stryker.config.mjs): the unit tests and the
// property test, which exercise src/core in this process. The HTTP, CLI, chain and webhook suites are left out:
// they are slow, and much of what they reach runs in another process or thread where Stryker cannot switch mutants.
// The limits they pin through the server are pinned here too: test/core/bounds.test.ts (the documented figures) and
// test/server/body-size.test.ts (the 2 MiB body where it is read).
import { basename } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { IN_PROCESS, SOURCE_CHECKS } from './vitest.config.js';

/**
 * The order of a run. A static mutant (module-level code: the schemas, the lists, the limits) runs every test until
 * one fails (bail 1), so the files that kill most of them quickly come first: the documented limits, the request and
 * answer schemas, the parser. Then the other unit tests, cheapest first, and the slow property test last,
 * so a mutant a unit test kills never waits for it. Files not named here run after the named ones, before the property test.
 */
const FIRST = [
  'core-loads.test.ts',
  'bounds.test.ts',
  'body-size.test.ts',
  'schemas.test.ts',
  'responses.test.ts',
  'schemas-limits-holds-batches.test.ts',
  'validate.test.ts',
  'bounded-parse.test.ts',
  'keys-json-instants.test.ts',
  'json.test.ts',
  'pure-parts.test.ts',
  'cursor.test.ts',
  'posting.test.ts',
  'policy.test.ts',
  'idempotency.test.ts',
  'accounts.test.ts',
  'api-keys.test.ts',
  'time.test.ts',
  'insert-shape.test.ts',
  'solana-credits.test.ts',
  'policy-and-matching.test.ts',
  'balances.test.ts',
  'transactions.test.ts',
  'group-commit.test.ts',
  'ledger.test.ts',
  'money.test.ts',
  'audit.test.ts',
  'token-registry.test.ts',
  'reconciliation.test.ts',
  'agents.test.ts',
  'webhook-retry-schedule.test.ts',
  'settlements.test.ts',
  'webhooks.test.ts',
];
const LAST = 'property.test.ts';

class KillersFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const name = basename(f.moduleId);
      if (name === LAST) return FIRST.length + 1;
      const at = FIRST.indexOf(name);
      return at === -1 ? FIRST.length : at;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // The in-process suites of every folder (vitest.config.ts) and the property test.
    include: [...IN_PROCESS, 'test/server/property.test.ts'],
    // They read the source as text (imports, promises left floating) and cannot see a mutant; one takes 40 s.
    exclude: SOURCE_CHECKS,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    sequence: { sequencer: KillersFirst },
    // Modules are loaded once per run, not once per test file: Stryker switches runtime mutants while the tests run,
    // and each run (one per mutant) starts from fresh modules, so a static mutant is in place when its module loads.
    isolate: false,
    // One seed for the property tests, so that every mutant meets the same postings and a score can be repeated.
    env: { PROPERTY_SEED: process.env.PROPERTY_SEED ?? '20260101' },
    // dist/ (the built CLI and writer thread, which the property test needs) is built in Stryker's sandbox, which has
    // none (ignorePatterns); a run in the checkout uses the dist/ that is there.
    globalSetup: ['test/helpers/mutation-setup.ts'],
  },
});

// The tests that mutation testing runs (npm run test:mutation, stryker.config.mjs): the unit tests and the
// property test, which exercise src/core in this process. The HTTP, CLI, chain and webhook suites are left out:
// they are slow, and much of what they reach runs in another process or thread where Stryker cannot switch mutants.
import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The property test last: under Stryker (bail 1) a mutant a unit test kills never waits for the slow property run. */
class PropertyLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isProperty = (f: TestSpecification) => f.moduleId.endsWith('/property.test.ts');
    return [...sorted.filter((f) => !isProperty(f)), ...sorted.filter(isProperty)];
  }
}

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/property.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    sequence: { sequencer: PropertyLast },
    // Modules are loaded once per worker, not once per test file: Stryker switches mutants at run time, and static
    // mutants (which would need a fresh load) are ignored (stryker.config.mjs). This halves the time per mutant.
    isolate: false,
    // One seed for the property test, so that every mutant meets the same postings and a score can be repeated.
    env: { PROPERTY_SEED: process.env.PROPERTY_SEED ?? '20260101' },
    // The property test makes its tenant with the built CLI (dist/). Stryker's sandbox has no dist/ (ignorePatterns),
    // so it is built there once; a run in the checkout uses the dist/ that is there, built by `npm test` or `npm run build`.
    globalSetup: existsSync('dist/cli.js') ? [] : ['test/helpers/global-setup.ts'],
  },
});

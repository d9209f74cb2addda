// Mutation testing of src/core: `npm run test:mutation`. Every mutant of src/core is run against the unit tests and
// the property test (vitest.mutation.config.ts); the score is in the clear-text summary and reports/mutation/.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/core/**/*.ts'],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // Each mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // One test runner: the machine has 2 cores and is shared with other test runs. Raise it on a machine of its own.
  concurrency: 1,
  // A mutant whose tests run longer than 1.5 times their unmutated time plus this is a timeout (an endless loop, say).
  timeoutMS: 10_000,
  // Static mutants (module-level code: the valibot schemas, the lists of codes and limits) cannot be traced to the tests
  // that reach them, so each one runs the whole suite: 16% of the mutants, but Stryker put them at 46% of the run time.
  // They are left out (and vitest.mutation.config.ts relies on it: isolate false loads each module once); the limits
  // they hold are pinned by the unit tests of validation all the same.
  ignoreStatic: true,
  thresholds: { high: 90, low: 85, break: null },
  // dist/ is built afresh in the sandbox (vitest.mutation.config.ts), never copied from the checkout.
  ignorePatterns: ['/dist'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

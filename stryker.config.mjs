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
  // Static mutants (module-level code: the valibot schemas, the lists of codes, the limits) are counted. Stryker cannot
  // trace them to the tests that reach them, so each runs the whole suite until a test fails: the order of the run
  // (vitest.mutation.config.ts) puts the fast tests that kill them first (the documented
  // limits, the request and answer schemas, the parser) and the property test last.
  ignoreStatic: false,
  thresholds: { high: 90, low: 85, break: null },
  // dist/ is built afresh in the sandbox (vitest.mutation.config.ts), never copied from the checkout.
  ignorePatterns: ['/dist', '/reports'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

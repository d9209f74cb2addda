// bench/evm.ts imports the chain suites' helpers from here: they are test/workers/chains/support.ts. Remove once the bench imports that.
export * from '../workers/chains/support.js';

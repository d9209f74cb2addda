// bench/evm.ts imports the anvil helper from here: it is test/workers/chains/anvil.ts. Remove once the bench imports that.
export * from '../workers/chains/anvil.js';

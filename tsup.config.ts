import { defineConfig } from 'tsup';

// ESM bundles for the CLI and the writer thread; dependencies stay external and come from node_modules.
export default defineConfig({
  // The writer thread is its own entry: the server starts it as a worker from dist/writer-thread.js.
  entry: { cli: 'src/cli/main.ts', 'writer-thread': 'src/store/writer-thread.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  splitting: false,
});

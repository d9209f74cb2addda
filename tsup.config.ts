import { defineConfig } from 'tsup';

// ESM bundles for the CLI and the writer thread; dependencies stay external and come from node_modules.
export default defineConfig({
  // The writer and checkpoint threads are entries of their own: the server starts them as workers from dist/.
  entry: {
    cli: 'src/cli/main.ts',
    'writer-thread': 'src/store/writer-thread.ts',
    'checkpoint-thread': 'src/store/sqlite/checkpoint-thread.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  splitting: false,
});

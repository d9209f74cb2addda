import { defineConfig } from 'tsup';

// One ESM bundle for the CLI; dependencies stay external and come from node_modules.
export default defineConfig({
  entry: { cli: 'src/cli/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  splitting: false,
});

// A bench server as the ledger ships: bundled by esbuild with tsup's settings, its threads dist/'s, not TypeScript
// loaded through tsx. tsx compiles with esbuild's keepNames, which wraps every closure a request makes in a naming
// call that the build does not have (a few µs a request on the app's side alone, and more on the writer's).
import { build } from 'esbuild';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { STORE_THREADS } from '../src/store/threads.js';

/** Bundles `entry` (a bench server) and returns the file to run with node. Needs `npm run build` first (dist/'s threads). */
export async function bundleBenchServer(entry: string): Promise<string> {
  // Inside the project, so that the packages left out of the bundle resolve from node_modules.
  const dir = resolve('node_modules/.cache/ledger-bench');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, entry.replace(/^.*\//, '').replace(/\.ts$/, '.mjs'));
  await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  // The store starts its threads from beside the running file (src/store/threads.ts): dist/'s.
  for (const name of STORE_THREADS) {
    const link = join(dir, `${name}.js`);
    rmSync(link, { force: true });
    symlinkSync(resolve('dist', `${name}.js`), link);
  }
  return outfile;
}

// Starting a worker thread of the store: from the build it runs dist/<name>.js; from source (tests, the benchmark)
// it loads the TypeScript file through tsx.
import { Worker } from 'node:worker_threads';

/** Each thread's source, from this folder (the build puts every entry beside the CLI, see tsup.config.ts). */
const SOURCES = { 'writer-thread': './writer-thread.ts', 'checkpoint-thread': './sqlite/checkpoint-thread.ts' } as const;

export function spawnStoreThread(name: keyof typeof SOURCES, workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL(`./${name}.js`, import.meta.url), { workerData });
  }
  const entry = new URL(SOURCES[name], import.meta.url).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

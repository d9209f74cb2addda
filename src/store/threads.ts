// Starting a worker thread of the store: from the build it runs dist/<name>.js; from source (tests, the benchmark)
// it loads the TypeScript file through tsx.
import { writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * Names the calling thread as the system shows it (`/proc/<pid>/task/<tid>/comm`, at most 15 characters), so that an
 * operator's `top -H` and the benchmark can tell the writer from the HTTP thread. Where there is no /proc, nothing.
 */
export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // Not Linux, or not allowed: the thread keeps the runtime's name.
  }
}

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

// Starting a worker thread of the store: from the build it runs dist/<name>.js; from source (tests, the benchmark)
// it loads the TypeScript file through tsx, unless the tests have checked dist/ is fresh (see spawnStoreThread).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
const SOURCES = {
  'writer-thread': './writer/writer-thread.ts',
  'checkpoint-thread': './sqlite/checkpoint-thread.ts',
  // The server's, for bank statements' files (server/statementParser.ts); started the same way.
  'statement-parse-thread': '../server/statementParseThread.ts',
} as const;

/** The threads' names, which are also the names of their files in dist/. */
export const STORE_THREADS = Object.keys(SOURCES) as Array<keyof typeof SOURCES>;

export function spawnStoreThread(name: keyof typeof SOURCES, workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL(`./${name}.js`, import.meta.url), { workerData });
  }
  // The tests' global setup (test/helpers/global-setup.ts) builds dist/ if it is older than any source and names it
  // here: compiling a thread through tsx takes seconds, and a test run starts many of them.
  const built = process.env.LEDGER_TEST_DIST;
  if (built) return new Worker(join(built, `${name}.js`), { workerData });
  const entry = new URL(SOURCES[name], import.meta.url).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

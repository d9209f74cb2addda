// Every module of src/core loads. The imports run at the top of this file, outside any test, and their errors are
// kept for the test to report, naming the module: a module that throws while loading fails a test here, rather than
// only leaving the files that import it impossible to collect. (Under Stryker, with every test file loaded before any
// runs, such a static mutant still ends as "survived" with no test run: its testsCompleted is 0 in the report.)
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const CORE = join(process.cwd(), 'src', 'core');
const modules = readdirSync(CORE, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .sort();
const failures: string[] = [];
for (const file of modules) {
  try {
    await import(pathToFileURL(join(CORE, file)).href);
  } catch (error) {
    failures.push(`${relative(process.cwd(), join(CORE, file))}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

it('every module of src/core loads', () => {
  expect(modules.length).toBeGreaterThan(30);
  expect(failures).toEqual([]);
});

// Every module of src/core loads. The imports run at the top of this file, outside any test, and their errors are
// kept for the test to report: a module that throws while loading fails a test here, rather than leaving a test file
// that cannot be collected. Under Stryker that difference matters: a file that fails to load reports no tests, and a
// mutant that breaks a module's top level (a static mutant) would count as survived. The mutation run starts with
// this file (vitest.mutation.config.ts) so that such a mutant is killed at once.
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

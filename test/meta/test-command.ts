// Runs the README's test command, `npm test`, in a folder, on the fixtures of test/meta/fixtures/ alone
// (LEDGER_TEST_INCLUDE, vitest.config.ts), as a user would from a shell: the environment of this test run is not
// passed on, save what any shell has.
import { spawn } from 'node:child_process';

export interface TestCommandResult {
  code: number | null;
  output: string;
}

/** `npm test -- <args>` in `cwd` on one fixture; `unset` names variables of this run's environment not to pass on. */
export function npmTest(cwd: string, fixture: 'failing' | 'passing', args: string[] = [], unset: string[] = []): Promise<TestCommandResult> {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', LEDGER_TEST_INCLUDE: `test/meta/fixtures/${fixture}.fixture.ts` };
  // PATH picks the same node and npm (CI runs other majors by PATH); a PostgreSQL of the user's own is kept, and so is
  // the dist/ this run checked (test/helpers/global-setup.ts: a run in the same folder must not rebuild it under us).
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LEDGER_TEST_PG_URL', 'LEDGER_TEST_DIST']) if (process.env[name] !== undefined && !unset.includes(name)) env[name] = process.env[name];
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['test', '--', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

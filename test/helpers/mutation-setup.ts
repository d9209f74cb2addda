// The mutation run's global setup: builds dist/ in Stryker's sandbox (the property test makes its tenant with the
// built CLI, and servers start their writer thread from dist/). tsup is found by module resolution, not at
// ./node_modules: when the checkout's node_modules is itself a link (a git worktree sharing another checkout's),
// Stryker does not link it into the sandbox, and the sandbox reaches it only through a parent folder.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export default function setup(): void {
  if (existsSync('dist/cli.js')) return;
  const tsup = join(dirname(createRequire(import.meta.url).resolve('tsup/package.json')), 'dist', 'cli-default.js');
  execFileSync(process.execPath, [tsup], { stdio: 'inherit' });
}

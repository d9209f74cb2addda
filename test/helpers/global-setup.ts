// Builds the CLI once before the suites, so CLI tests run the real binary from dist/.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js'], { stdio: 'ignore' });
}

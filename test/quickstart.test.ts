// The README's five-minute walk-through, run as it is written.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('README quickstart', () => {
  it('runs as written and shows the posted balance and statement', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const block = /<!-- quickstart:begin -->\s*```sh\n([\s\S]*?)```\s*<!-- quickstart:end -->/.exec(readme);
    expect(block, 'README has a quickstart block').not.toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'ledger-quickstart-'));
    try {
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', block![1]!], {
        env: { ...process.env, LEDGER_DB: join(dir, 'ledger.db'), PORT: String(await freePort()) },
        timeout: 60_000,
      });
      expect(stdout).toMatch(/"transactionId":"[0-9a-f-]{36}"/);
      expect(stdout).toMatch(/"amount":125\.5,"normalBalance":"DEBIT"/);
      expect(stdout).toMatch(/"closingBalance":125\.5/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

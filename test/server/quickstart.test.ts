// The README's five-minute walk-through, run as it is written.
import { describe, expect, it } from 'vitest';
import { EXAMPLE_IDS, QUICKSTART_EXAMPLES } from '../../src/server/examples.js';
import { ISO_MS, UUID } from '../helpers/expect.js';
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

/** A JSON value with every id and instant replaced by a placeholder. */
function anonymous(value: unknown): unknown {
  if (typeof value === 'string') return UUID.test(value) ? '<id>' : ISO_MS.test(value) ? '<instant>' : value;
  if (Array.isArray(value)) return value.map(anonymous);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, anonymous(v)]));
  return value;
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
      expect(stdout).toMatch(/"amount":125\.5,"pending":0,"available":125\.5,"normalBalance":"DEBIT"/);
      expect(stdout).toMatch(/"closingBalance":125\.5/);

      // The document's examples are the quickstart's: what it sends, and what it prints (ids and times aside).
      const printed = stdout
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const examples = QUICKSTART_EXAMPLES;
      expect(printed.map(anonymous)).toEqual([examples.postTransaction!, examples.getBalance!, examples.getStatement!].map((e) => anonymous(e.response!.body)));
      const sent = block![1]!.replace(/\\"/g, '"').replace(/\s+/g, '');
      expect(sent).toContain(`-d'${JSON.stringify(examples.createAccount!.request)}'`);
      const posting = JSON.stringify(examples.postTransaction!.request).replaceAll(EXAMPLE_IDS.CASH, '$CASH').replaceAll(EXAMPLE_IDS.SALES, '$SALES');
      expect(sent).toContain(`-d"${posting}"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

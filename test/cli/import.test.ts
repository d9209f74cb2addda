// `ledger transactions import` (issue 33): postings from NDJSON on standard input, one a line with its
// idempotencyKey, sent in batches; --json prints one result a line; exit 1 if any item failed; run again, every
// posting already made answers its replay; a line that is not a posting exits 2 naming it. Issue 41: a byte order
// mark at the file's start is skipped; a line longer than a posting's largest body exits 2 naming it, read with a
// bounded buffer (the process's peak memory measured with a 40 MB line); a key twice names both lines in its details.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BODY_SIZE_MAX_BYTES } from '../../src/core/limits.js';
import { BIN, cli, fiat, useServerWithAccounts, type Client } from '../helpers/server.js';

/** Preloaded into the CLI: its peak resident memory (KiB), written to stderr as it exits. */
const PEAK_RSS = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(2, `peak rss: ${process.resourceUsage().maxRSS} KiB\\n`));",
)}`;

describe('ledger transactions import', () => {
  let c: Client;
  let cash: string;
  let sales: string;
  const run = (input: string, ...args: string[]) => cli(['--db', t.dbPath, 'transactions', 'import', '--tenant', t.tenant.tenantId, ...args], {}, input);
  const line = (amount: string, key = randomUUID(), credit = amount) => JSON.stringify({ idempotencyKey: key, lines: [fiat(cash, 'DEBIT', amount), fiat(sales, 'CREDIT', credit)] });
  const balance = async () => (await c.get(`/api/v1/accounts/${cash}/balance`)).body.amount as number;

  /** The import with a file as its standard input (as `< file` gives it), and the process's peak memory. */
  const runFile = (path: string) =>
    new Promise<{ code: number | null; stderr: string; peakKiB: number }>((resolve, reject) => {
      const fd = openSync(path, 'r');
      const child = spawn(process.execPath, [`--import=${PEAK_RSS}`, BIN, '--db', t.dbPath, 'transactions', 'import', '--tenant', t.tenant.tenantId], {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: [fd, 'ignore', 'pipe'],
      });
      closeSync(fd);
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stderr, peakKiB: Number(/peak rss: (\d+) KiB/.exec(stderr)?.[1]) }));
    });

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', sales: 'REVENUE' } });
  beforeAll(() => {
    ({ client: c, accounts: { cash, sales } } = t);
  });

  it('posts every line, reports the refused one (exit 1), and answers replays when run again', async () => {
    const file = [line('1.00'), line('2.00'), '', line('3.00', randomUUID(), '3.50'), line('4.00')].join('\n') + '\n';
    const first = await run(file, '--json');
    expect(first.code, first.stderr).toBe(1);
    const results = first.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(results.map((r) => [r.line, r.status, r.error?.code])).toEqual([
      [1, 201, undefined],
      [2, 201, undefined],
      [4, 422, 'UNBALANCED'],
      [5, 201, undefined],
    ]);
    expect(await balance()).toBe(7);
    const again = await run(file, '--json');
    expect(again.stdout.trim().split('\n').map((l) => JSON.parse(l).transactionId)).toEqual(results.map((r) => r.transactionId));
    expect(await balance()).toBe(7);
    const people = await run([line('0.50'), line('0.25')].join('\n'));
    expect(people.code, people.stderr).toBe(0);
    expect(people.stdout).toBe('2 posted, 0 refused, of 2.\n');
    expect(await balance()).toBe(7.75);
  });

  it('--atomic: a batch refused writes none of its lines; a line that is not a posting exits 2 naming it', async () => {
    const atomic = await run([line('1.00'), line('1.00', randomUUID(), '2.00')].join('\n'), '--atomic', '--json');
    expect(atomic.code).toBe(1);
    const results = atomic.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(results.map((r) => [r.line, r.status, r.error?.code])).toEqual([
      [1, 422, 'UNBALANCED'],
      [2, 422, 'UNBALANCED'],
    ]);
    expect(results[0].error.message).toMatch(/^line 2: /);
    expect(await balance()).toBe(7.75);
    const bad = await run([line('1.00'), '{"lines": []}'].join('\n'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/line 2/);
    expect(await balance()).toBe(7.75);
  });

  it('skips a byte order mark at the file’s start; one at another line’s start is that line’s bad input', async () => {
    const before = await balance();
    const withBom = await run(`\uFEFF${line('0.10')}\r\n${line('0.20')}\r\n`);
    expect(withBom.code, withBom.stderr).toBe(0);
    expect(withBom.stdout).toBe('2 posted, 0 refused, of 2.\n');
    expect(await balance()).toBeCloseTo(before + 0.3, 9);
    const later = await run(`${line('0.10')}\n\uFEFF${line('0.20')}\n`);
    expect(later.code).toBe(2);
    expect(later.stderr).toMatch(/line 2: /);
    expect(await balance()).toBeCloseTo(before + 0.3, 9);
  });

  it('a line of a posting’s largest body is posted; one byte more exits 2 naming the line, nothing of its batch posted', async () => {
    const before = await balance();
    const padded = (text: string, bytes: number) => text + ' '.repeat(bytes - Buffer.byteLength(text));
    const largest = padded(line('0.01'), BODY_SIZE_MAX_BYTES);
    const posted = await run(`${largest}\r\n`);
    expect(posted.code, posted.stderr).toBe(0);
    expect(await balance()).toBeCloseTo(before + 0.01, 9);
    const refused = await run(`${line('0.02')}\n${padded(line('0.02'), BODY_SIZE_MAX_BYTES + 1)}\n${line('0.02')}\n`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`line 2: longer than ${BODY_SIZE_MAX_BYTES} bytes, the largest body of a posting.`);
    expect(await balance()).toBeCloseTo(before + 0.01, 9);
  });

  it('a 40 MB line is refused by its number without being read whole: the peak memory stays well under the line', async () => {
    const LINE_BYTES = 40 * 1024 * 1024;
    const dir = mkdtempSync(join(tmpdir(), 'ledger-import-'));
    try {
      const write = (name: string, third: (fd: number) => void) => {
        const path = join(dir, name);
        const fd = openSync(path, 'w');
        writeSync(fd, `${line('0.03')}\n${line('0.03')}\n`);
        third(fd);
        writeSync(fd, `\n${line('0.03')}\n`);
        closeSync(fd);
        return path;
      };
      // The same file but for its third line: a short bad one, and a posting whose description never ends.
      const short = write('short.ndjson', (fd) => writeSync(fd, '{'));
      const long = write('long.ndjson', (fd) => {
        writeSync(fd, `{"idempotencyKey":"${randomUUID()}","description":"`);
        const mib = Buffer.alloc(1024 * 1024, 'x');
        for (let i = 0; i < LINE_BYTES / mib.length; i++) writeSync(fd, mib);
      });
      const before = await balance();
      const base = await runFile(short);
      expect(base.code, base.stderr).toBe(2);
      expect(base.stderr).toMatch(/line 3: /);
      const big = await runFile(long);
      expect(big.code, big.stderr).toBe(2);
      expect(big.stderr).toContain(`line 3: longer than ${BODY_SIZE_MAX_BYTES} bytes`);
      expect(await balance()).toBe(before);
      const grewKiB = big.peakKiB - base.peakKiB;
      console.log(`transactions import: peak ${base.peakKiB} KiB with a short bad line, ${big.peakKiB} KiB with a 40 MB line (+${grewKiB} KiB)`);
      expect(base.peakKiB).toBeGreaterThan(0);
      // The line is 40 MB; the reader holds at most one body (2 MiB) of it. readline held it all: 178 MB.
      expect(grewKiB * 1024).toBeLessThan(LINE_BYTES / 4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a key twice exits 2, its details naming both lines of the file', async () => {
    const before = await balance();
    const key = randomUUID();
    const file = [line('0.04'), line('0.04'), line('0.04', key), line('0.04'), '', line('0.04'), line('0.05', key)].join('\n');
    const twice = await run(file);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('line 3 and line 7 have the same idempotencyKey');
    expect(twice.stderr).toContain("\n  line 3.idempotencyKey: the same as line 7's\n");
    expect(twice.stderr).toContain("\n  line 7.idempotencyKey: the same as line 3's\n");
    expect(twice.stderr).not.toContain('transactions[');
    expect(await balance()).toBe(before);
  });
});

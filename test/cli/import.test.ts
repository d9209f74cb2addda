// `ledger transactions import` (issue 33): postings from NDJSON on standard input, one a line with its
// idempotencyKey, sent in batches; --json prints one result a line; exit 1 if any item failed; run again, every
// posting already made answers its replay; a line that is not a posting exits 2 naming it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, client, fiat, makeAccount, startTestServer, type Client, type TestServer } from '../helpers/server.js';

describe('ledger transactions import', () => {
  let t: TestServer;
  let c: Client;
  let cash: string;
  let sales: string;
  const run = (input: string, ...args: string[]) => cli(['--db', t.dbPath, 'transactions', 'import', '--tenant', t.tenant.tenantId, ...args], {}, input);
  const line = (amount: string, key = randomUUID(), credit = amount) => JSON.stringify({ idempotencyKey: key, lines: [fiat(cash, 'DEBIT', amount), fiat(sales, 'CREDIT', credit)] });
  const balance = async () => (await c.get(`/api/v1/accounts/${cash}/balance`)).body.amount as number;

  beforeAll(async () => {
    t = await startTestServer();
    c = client(t.url, t.tenant.apiKey.rawKey);
    cash = await makeAccount(c, { name: 'cash' });
    sales = await makeAccount(c, { name: 'sales', type: 'REVENUE' });
  });
  afterAll(async () => t?.stop());

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
});

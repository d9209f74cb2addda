// POST /api/v1/transactions/batch (issue 33) over HTTP, on both engines: each item is a posting in its own right
// (its key shared with POST /api/v1/transactions, its audit record, its event, found by its key); not atomic, each
// answers what the single endpoint would; atomic, all or nothing; a malformed body writes nothing.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';

describe('POST /api/v1/transactions/batch', () => {
  let c: Client;
  let cash: string;
  let sales: string;
  const batch = (transactions: unknown[], atomic?: boolean) => c.post('/api/v1/transactions/batch', { ...(atomic === undefined ? {} : { atomic }), transactions });
  const item = (lines: unknown[], key: string = randomUUID(), metadata?: Record<string, string>) => ({ idempotencyKey: key, lines, ...(metadata ? { metadata } : {}) });
  const pay = (amount: string, key?: string) => item([fiat(cash, 'DEBIT', amount), fiat(sales, 'CREDIT', amount)], key);
  const balanceOf = async (account: string) => (await c.get(`/api/v1/accounts/${account}/balance`)).body.amount as number;
  const transactionCount = async () => {
    let n = 0;
    for (let cursor: string | null = null; ; ) {
      const res: HttpResult = await c.get(`/api/v1/transactions?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      n += res.body.items.length;
      cursor = res.body.nextCursor;
      if (!cursor) return n;
    }
  };

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', sales: 'REVENUE' } });
  beforeAll(() => {
    ({ client: c, accounts: { cash, sales } } = t);
  });

  it('not atomic: each item answers what POST /api/v1/transactions would, in order; one refused stops none', async () => {
    const [single, other] = [randomUUID(), randomUUID()];
    const posted = await c.post('/api/v1/transactions', { lines: [fiat(cash, 'DEBIT', '5.00'), fiat(sales, 'CREDIT', '5.00')] }, { 'idempotency-key': single });
    expect(posted.status, posted.text).toBe(201);
    expect((await c.post('/api/v1/transactions', { lines: pay('7.00').lines }, { 'idempotency-key': other })).status).toBe(201);
    const before = await balanceOf(cash);
    const res = await batch([
      pay('1.00'),
      item([fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '2.00')]),
      item([fiat(randomUUID(), 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')]),
      // The single posting's key and body: its answer again.
      pay('5.00', single),
      // Another single posting's key with another body.
      pay('6.00', other),
      pay('2.00', 'batch-order-7'),
    ]);
    expect(res.status, res.text).toBe(200);
    const results = res.body.results as Array<{ index: number; status: number; transactionId?: string; error?: { code: string; message: string } }>;
    expect(results.map((r) => [r.index, r.status, r.error?.code])).toEqual([
      [0, 201, undefined],
      [1, 422, 'UNBALANCED'],
      [2, 422, 'ACCOUNT_NOT_FOUND'],
      [3, 201, undefined],
      [4, 422, 'IDEMPOTENCY_KEY_REUSED'],
      [5, 201, undefined],
    ]);
    expect(results[3]!.transactionId).toBe(posted.body.transactionId);
    expect(results[1]!.error!.message).toMatch(/not balanced/);
    expect(await balanceOf(cash)).toBeCloseTo(before + 3, 5);
    // Each posting is one in its own right: found by its key, with its audit record and its event.
    const found = await c.get('/api/v1/transactions?idempotencyKey=batch-order-7');
    expect(found.body.items.map((x: { transactionId: string }) => x.transactionId)).toEqual([results[5]!.transactionId]);
    const events = await c.get('/api/v1/events?type=transaction.committed&limit=200');
    const committed = new Set(events.body.items.map((e: { data: { transactionId: string } }) => e.data.transactionId));
    for (const r of [results[0], results[5]]) expect(committed.has(r!.transactionId)).toBe(true);
    // A key of the batch replays on the single endpoint.
    const again = await c.post('/api/v1/transactions', { lines: [fiat(cash, 'DEBIT', '2.00'), fiat(sales, 'CREDIT', '2.00')] }, { 'idempotency-key': 'batch-order-7' });
    expect(again.status, again.text).toBe(201);
    expect(again.body.transactionId).toBe(results[5]!.transactionId);
  });

  it('items apply in order: a limit sees the items before it', async () => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    const funding = await makeAccount(c, { name: 'funding', type: 'EQUITY' });
    expect((await c.request('PUT', `/api/v1/accounts/${wallet}/limits`, { body: { limits: [{ asset: 'USD', min: '0' }] } })).status).toBe(200);
    const spend = (amount: string) => item([fiat(sales, 'DEBIT', amount), fiat(wallet, 'CREDIT', amount)]);
    const res = await batch([spend('1.00'), item([fiat(wallet, 'DEBIT', '10.00'), fiat(funding, 'CREDIT', '10.00')]), spend('10.00'), spend('0.01')]);
    expect(res.body.results.map((r: { status: number; error?: { code: string } }) => [r.status, r.error?.code])).toEqual([
      [422, 'BALANCE_LIMIT_EXCEEDED'],
      [201, undefined],
      [201, undefined],
      [422, 'BALANCE_LIMIT_EXCEEDED'],
    ]);
    expect(await balanceOf(wallet)).toBe(0);
  });

  it('atomic: all of it in one write (201), answered again on a retry; a refused item refuses all, naming it, and uses no key', async () => {
    const before = await balanceOf(cash);
    const keys = [randomUUID(), randomUUID(), randomUUID()];
    const refused = await batch([pay('1.00', keys[0]), pay('2.00', keys[1]), item([fiat(cash, 'DEBIT', '1.00'), fiat(randomUUID(), 'CREDIT', '1.00')], keys[2])], true);
    expectError(refused, 422, 'ACCOUNT_NOT_FOUND');
    expect(refused.body.details).toEqual([{ path: 'transactions[2].lines[1].accountId', message: expect.any(String) }]);
    expect(refused.body.message).toMatch(/^transactions\[2\]: /);
    expect(await balanceOf(cash)).toBe(before);
    const unbalanced = await batch([pay('1.00', keys[0]), item([fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.50')])], true);
    expectError(unbalanced, 422, 'UNBALANCED');
    expect(unbalanced.body.details[0].path).toBe('transactions[1].lines');
    // No key was used: the first item's key posts afresh on its own.
    const alone = await c.post('/api/v1/transactions', { lines: pay('1.00').lines }, { 'idempotency-key': keys[0]! });
    expect(alone.status, alone.text).toBe(201);
    expect(await balanceOf(cash)).toBeCloseTo(before + 1, 5);

    const fresh = [randomUUID(), randomUUID()];
    const ok = await batch([pay('3.00', fresh[0]), pay('4.00', fresh[1])], true);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.results.map((r: { index: number; status: number }) => [r.index, r.status])).toEqual([[0, 201], [1, 201]]);
    expect(await balanceOf(cash)).toBeCloseTo(before + 8, 5);
    const retry = await batch([pay('3.00', fresh[0]), pay('4.00', fresh[1])], true);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toEqual(ok.body);
    expect(await balanceOf(cash)).toBeCloseTo(before + 8, 5);
    // One key reused with another body refuses the atomic batch.
    const reused = await batch([pay('9.00', fresh[0])], true);
    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(reused.body.details[0].path).toBe('transactions[0].idempotencyKey');
  });

  it('a malformed body is 400 and writes nothing, in both modes', async () => {
    const count = await transactionCount();
    const balance = await balanceOf(cash);
    for (const atomic of [false, true]) {
      const twice = await batch([pay('1.00', 'same'), pay('1.00'), pay('2.00', 'same')], atomic);
      expectValidation(twice, { message: /transactions\[0\] and transactions\[2\]/ });
      expect(twice.body.details.map((d: { path: string }) => d.path)).toEqual(['transactions[0].idempotencyKey', 'transactions[2].idempotencyKey']);
      expectValidation(await batch([pay('1.00'), { lines: pay('1.00').lines }], atomic), { detail: { path: /transactions\.1\.idempotencyKey/ } });
      expectValidation(await batch([pay('1.00'), pay('1.001')], atomic), { detail: { path: 'transactions[1].lines[0].monetaryEntry.amount' } });
      expectValidation(await batch([], atomic));
      expectValidation(await batch(Array.from({ length: 501 }, () => pay('1.00')), atomic));
      expectValidation(await batch([{ ...pay('1.00'), extra: 1 }], atomic));
    }
    expectValidation(await c.post('/api/v1/transactions/batch', { atomic: 'yes', transactions: [pay('1.00')] }), { detail: { path: 'atomic' } });
    // Lines in all: 10,000 at most; 1,000 in an atomic batch.
    const wide = (n: number) => item(Array.from({ length: n }, (_, i) => fiat(i % 2 ? sales : cash, i % 2 ? 'CREDIT' : 'DEBIT', '0.01')));
    expectValidation(await batch([wide(500), wide(502)], true), { message: /1002 lines in all; an atomic batch is one write, of at most 1000/ });
    expectValidation(await batch(Array.from({ length: 11 }, () => wide(1000))), { message: /11000 lines in all; a batch has at most 10000/ });
    expect(await transactionCount()).toBe(count);
    expect(await balanceOf(cash)).toBe(balance);
  });

  it("the README's batch runs as written: the first posting made, the second refused alone", async () => {
    const readme = /<!-- batch:begin -->\s*```sh\n([\s\S]*?)```\s*<!-- batch:end -->/.exec(readFileSync('README.md', 'utf8'));
    expect(readme, 'README has the batch block').not.toBeNull();
    const prelude = `json() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8'))$1"; }\n`;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', prelude + readme![1]!], {
      env: { ...process.env, API: `${t.url}/api/v1`, AUTH: `Authorization: Bearer ${t.tenant.apiKey.rawKey}`, CASH: cash, SALES: sales },
      timeout: 30_000,
    });
    const [first, second] = stdout.trim().split('\n');
    expect(first).toMatch(/^0 201 [0-9a-f-]{36}$/);
    expect(second).toBe('1 422 UNBALANCED');
  });

  it('needs TRANSACTIONS_WRITE', async () => {
    const key = await c.post('/api/v1/api-keys', { scopes: ['TRANSACTIONS_READ'] });
    const reader = client(t.url, key.body.rawKey);
    expectError(await reader.post('/api/v1/transactions/batch', { transactions: [pay('1.00')] }), 403, 'FORBIDDEN');
  });
});

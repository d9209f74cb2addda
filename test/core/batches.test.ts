// Batches on the in-process ledger (src/core/usecases/batches.ts and TransactionService.postBatch), where the
// mutation run reaches them: the body checked whole, items in order under the keys of single postings, atomic all or
// nothing with the first refused item named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, auditOf, fiatLine, openLedger, type Harness } from './ledger-harness.js';
import { batchItems, type BatchResult } from '../../src/core/usecases/batches.js';
import type { PostBatchBody } from '../../src/core/schemas.js';
import { LedgerError } from '../../src/core/errors.js';
import { batchPath } from '../../src/core/commands/transactions.js';

describe('batches (use cases)', () => {
  let h: Harness;
  let cash: string;
  let sales: string;
  const pay = (amount: string, key: string, credit = amount) => ({ idempotencyKey: key, lines: [fiatLine(cash, 'DEBIT', amount), fiatLine(sales, 'CREDIT', credit)] });
  const post = (transactions: PostBatchBody['transactions'], atomic = false) => h.ledger.batches.post(h.tenantId, h.actor, { atomic, transactions });
  const summary = (results: BatchResult[]) => results.map((r) => ('error' in r ? [r.index, r.error.code] : [r.index, r.response.status]));
  const balance = async () => (await h.store.balances(h.tenantId, cash)).get('USD') ?? 0n;
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof LedgerError) return { code: error.code, message: error.message, details: error.details };
      throw error;
    }
    throw new Error('not refused');
  };

  beforeAll(async () => {
    h = await openLedger();
    cash = await account(h, { name: 'cash' });
    sales = await account(h, { name: 'sales', type: 'REVENUE' });
  });
  afterAll(async () => h?.close());

  it('names places as the answers do', () => {
    expect(batchPath(3)).toBe('transactions[3]');
    expect(batchPath(3, 'lines.1.accountId')).toBe('transactions[3].lines[1].accountId');
    expect(batchPath(0, 'lines')).toBe('transactions[0].lines');
    expect(batchPath(12, 'lines.10.monetaryEntry.amount')).toBe('transactions[12].lines[10].monetaryEntry.amount');
  });

  it('checks the body whole: amounts at their place, each key once, the lines in all', async () => {
    await expect(batchItems({ atomic: false, transactions: [pay('1.00', 'a'), pay('1.005', 'b')] })).rejects.toThrow(/transactions\[1\]: lines\.0\.monetaryEntry\.amount/);
    try {
      await batchItems({ atomic: false, transactions: [pay('1.00', 'a'), pay('1.00', 'b'), pay('2.00', 'a')] });
      expect.unreachable();
    } catch (error) {
      expect((error as LedgerError).details).toEqual([
        { path: 'transactions[0].idempotencyKey', message: "the same as transactions[2]'s" },
        { path: 'transactions[2].idempotencyKey', message: "the same as transactions[0]'s" },
      ]);
    }
    const wide = (key: string, n: number) => ({ idempotencyKey: key, lines: Array.from({ length: n }, (_, i) => fiatLine(i % 2 ? sales : cash, i % 2 ? 'CREDIT' : 'DEBIT', '0.01')) });
    expect(await batchItems({ atomic: true, transactions: [wide('a', 500), wide('b', 500)] })).toHaveLength(2);
    await expect(batchItems({ atomic: true, transactions: [wide('a', 500), wide('b', 502)] })).rejects.toThrow('the batch has 1002 lines in all; an atomic batch is one write, of at most 1000.');
    expect(await batchItems({ atomic: false, transactions: Array.from({ length: 10 }, (_, i) => wide(`k${i}`, 1000)) })).toHaveLength(10);
    await expect(batchItems({ atomic: false, transactions: Array.from({ length: 11 }, (_, i) => wide(`k${i}`, 1000)) })).rejects.toThrow('the batch has 11000 lines in all; a batch has at most 10000.');
    const [item] = await batchItems({ atomic: false, transactions: [pay('1.00', 'x')] });
    expect(item).toMatchObject({ index: 0, key: 'x' });
    expect(item!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('not atomic: each item as a single posting, in order; the keys are shared with single postings', async () => {
    const single = await h.ledger.transactions.post(h.tenantId, h.actor, 'single-1', { lines: pay('5.00', 'x').lines });
    const results = await post([pay('1.00', 'n-1'), pay('1.00', 'n-2', '2.00'), pay('5.00', 'single-1'), pay('6.00', 'single-1-other'), pay('7.00', 'n-1-again')]);
    expect(summary(results)).toEqual([
      [0, 201],
      [1, 'UNBALANCED'],
      [2, 201],
      [3, 201],
      [4, 201],
    ]);
    expect((results[2] as { response: { body: string } }).response.body).toBe(single.body);
    expect(await balance()).toBe(500n + 100n + 600n + 700n);
    const again = await h.ledger.transactions.post(h.tenantId, h.actor, 'n-1', { lines: pay('1.00', 'x').lines });
    expect(again.body).toBe((results[0] as { response: { body: string } }).response.body);
    // One audit record a posting.
    const audited = (await auditOf(h)).filter((a) => a.action === 'POST_TRANSACTION').map((a) => a.payload.idempotencyKey);
    expect(audited).toEqual(['single-1', 'n-1', 'single-1-other', 'n-1-again']);
  });

  it('a key another request of this process holds: 409 for that item alone, or for the whole atomic batch, naming it', async () => {
    // The single posting holds its key from the moment it is asked for until it is answered; both are asked in one turn.
    const single = h.ledger.transactions.post(h.tenantId, h.actor, 'held-1', { lines: pay('1.00', 'x').lines });
    const mixed = post([pay('1.00', 'free-1'), pay('1.00', 'held-1')]);
    const atomic = refusal(post([pay('1.00', 'free-2'), pay('1.00', 'held-1')], true));
    await single;
    expect(summary(await mixed)).toEqual([
      [0, 201],
      [1, 'IDEMPOTENCY_IN_PROGRESS'],
    ]);
    expect(await atomic).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', details: [{ path: 'transactions[1].idempotencyKey', message: 'is in use by a request in progress' }] });
    // Nothing of the atomic batch was written: its free key posts afresh.
    const again = await post([pay('1.00', 'free-2')], true);
    expect(summary(again)).toEqual([[0, 201]]);
  });

  it('atomic: every item or none; the first refused is named with its place; a retry answers the same', async () => {
    const before = await balance();
    const refused = await refusal(post([pay('1.00', 'a-1'), pay('1.00', 'a-2'), { idempotencyKey: 'a-3', lines: [fiatLine(cash, 'DEBIT', '1.00'), fiatLine('0193a5f0-6c1e-7b3a-9d42-1f5e8c7a2b10', 'CREDIT', '1.00')] }], true));
    expect(refused.code).toBe('ACCOUNT_NOT_FOUND');
    expect(refused.message).toMatch(/^transactions\[2\]: lines\.1\.accountId .* Nothing of the batch was written\.$/);
    expect(refused.details).toEqual([{ path: 'transactions[2].lines[1].accountId', message: expect.stringMatching(/is not an account of this tenant/) }]);
    expect(await balance()).toBe(before);
    const reused = await refusal(post([pay('9.00', 'n-1')], true));
    expect(reused).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: [{ path: 'transactions[0].idempotencyKey' }] });
    const ok = await post([pay('1.00', 'a-1'), pay('2.00', 'a-2')], true);
    expect(summary(ok)).toEqual([
      [0, 201],
      [1, 201],
    ]);
    expect(await balance()).toBe(before + 300n);
    const retry = await post([pay('1.00', 'a-1'), pay('2.00', 'a-2')], true);
    expect(retry).toEqual(ok);
    expect(await balance()).toBe(before + 300n);
  });
});

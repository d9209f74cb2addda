// Reads of one account (src/core/usecases/entries.ts) over a real SQLite store: balance now and as of an instant,
// on the account's normal side, per token; the entries listing with its range and cursor; the period statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, chainLine, fiatLine, openLedger, postLines, toJsonText, type Harness } from './ledger-harness.js';
import { CursorScope } from '../../src/core/cursor.js';

const ms = (iso: string) => Date.parse(iso);

describe('balances, entries and statements', () => {
  let h: Harness;
  let cash: string;
  let sales: string;
  const tx: string[] = [];
  beforeAll(async () => {
    h = await openLedger();
    cash = await account(h, { type: 'ASSET' });
    sales = await account(h, { type: 'REVENUE' });
    h.clock.set('2030-05-01T00:00:00.000Z');
    tx.push((await postLines(h, [fiatLine(cash, 'DEBIT', '10', 'USD', { description: 'first' }), fiatLine(sales, 'CREDIT', '10')])).transactionId);
    h.clock.set('2030-05-02T00:00:00.000Z');
    tx.push((await postLines(h, [chainLine(cash, 'DEBIT', '3.5', { token: 'USDT' }), chainLine(sales, 'CREDIT', '3.5', { token: 'USDT' })])).transactionId);
    tx.push((await postLines(h, [chainLine(cash, 'DEBIT', '1', { token: 'BRZ' }), chainLine(sales, 'CREDIT', '1', { token: 'BRZ' })])).transactionId);
    h.clock.set('2030-05-03T00:00:00.000Z');
    tx.push((await postLines(h, [fiatLine(cash, 'CREDIT', '4'), fiatLine(sales, 'DEBIT', '4')])).transactionId);
    tx.push((await postLines(h, [chainLine(cash, 'DEBIT', '0.25', { token: 'USDC' }), chainLine(sales, 'CREDIT', '0.25', { token: 'USDC' })])).transactionId);
    h.clock.set('2030-05-10T00:00:00.000Z');
  });
  afterAll(async () => h?.close());

  const json = (value: unknown) => JSON.parse(toJsonText(value));

  it('reports the current balance on the normal side, tokens sorted by name', async () => {
    expect(json(await h.ledger.entries.balance(h.tenantId, cash, undefined))).toEqual({
      accountId: cash,
      currency: 'USD',
      amount: 6,
      pending: 0,
      available: 6,
      normalBalance: 'DEBIT',
      computedAt: '2030-05-10T00:00:00.000Z',
      onChainBalances: [
        { token: 'BRZ', amount: 1, pending: 0, available: 1 },
        { token: 'USDC', amount: 0.25, pending: 0, available: 0.25 },
        { token: 'USDT', amount: 3.5, pending: 0, available: 3.5 },
      ],
    });
    const revenue = await h.ledger.entries.balance(h.tenantId, sales, undefined);
    expect(revenue.amount.text).toBe('6');
    expect(revenue.normalBalance).toBe('CREDIT');
    expect(revenue.onChainBalances.map((b) => [b.token, b.amount.text])).toEqual([
      ['BRZ', '1'],
      ['USDC', '0.25'],
      ['USDT', '3.5'],
    ]);
  });

  it('as of an instant: only what was committed by then, inclusive, and nothing before the first entry', async () => {
    const at = (iso: string) => h.ledger.entries.balance(h.tenantId, cash, ms(iso));
    expect((await at('2030-04-30T00:00:00.000Z')).amount.text).toBe('0');
    expect((await at('2030-04-30T00:00:00.000Z')).onChainBalances).toEqual([]);
    expect((await at('2030-05-01T00:00:00.000Z')).amount.text).toBe('10');
    const second = await at('2030-05-02T00:00:00.000Z');
    expect(second.amount.text).toBe('10');
    expect(second.onChainBalances.map((b) => [b.token, b.amount.text])).toEqual([
      ['BRZ', '1'],
      ['USDT', '3.5'],
    ]);
    expect((await at('2030-05-02T23:59:59.999Z')).amount.text).toBe('10');
    expect((await at('2030-05-03T00:00:00.000Z')).amount.text).toBe('6');
    expect((await h.ledger.entries.balance(h.tenantId, sales, ms('2030-05-03T00:00:00.000Z'))).amount.text).toBe('6');
  });

  it('a balance, entries or statement of an unknown account is 404', async () => {
    const unknown = '0190a1b2-0000-7000-8000-0000000000ee';
    await expect(h.ledger.entries.balance(h.tenantId, unknown, undefined)).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    await expect(h.ledger.entries.list(h.tenantId, unknown, {})).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    await expect(h.ledger.entries.statement(h.tenantId, unknown, 0, 1)).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('lists entries newest first, within a range, paged by a cursor of this account only', async () => {
    const all = await h.ledger.entries.list(h.tenantId, cash, {});
    const rows = JSON.parse(all.entries.text) as Array<{ transactionId: string; createdAt: string }>;
    expect(all.accountId).toBe(cash);
    expect(rows.map((r) => r.transactionId)).toEqual([...tx].reverse());
    expect(all.nextCursor).toBeNull();

    const ranged = await h.ledger.entries.list(h.tenantId, cash, { from: ms('2030-05-02T00:00:00.000Z'), to: ms('2030-05-02T00:00:00.000Z') });
    expect((JSON.parse(ranged.entries.text) as Array<{ transactionId: string }>).map((r) => r.transactionId)).toEqual([tx[2], tx[1]]);
    expect((JSON.parse((await h.ledger.entries.list(h.tenantId, cash, { from: ms('2030-05-03T00:00:00.000Z') })).entries.text) as unknown[]).length).toBe(2);
    expect((JSON.parse((await h.ledger.entries.list(h.tenantId, cash, { to: ms('2030-05-01T00:00:00.000Z') })).entries.text) as unknown[]).length).toBe(1);

    const first = await h.ledger.entries.list(h.tenantId, cash, { limit: 2 });
    expect((JSON.parse(first.entries.text) as Array<{ transactionId: string }>).map((r) => r.transactionId)).toEqual([tx[4], tx[3]]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = await h.ledger.entries.list(h.tenantId, cash, { limit: 2, cursor: first.nextCursor! });
    expect((JSON.parse(next.entries.text) as Array<{ transactionId: string }>).map((r) => r.transactionId)).toEqual([tx[2], tx[1]]);
    const last = await h.ledger.entries.list(h.tenantId, cash, { limit: 2, cursor: next.nextCursor! });
    expect((JSON.parse(last.entries.text) as Array<{ transactionId: string }>).map((r) => r.transactionId)).toEqual([tx[0]]);
    expect(last.nextCursor).toBeNull();
    await expect(h.ledger.entries.list(h.tenantId, sales, { cursor: first.nextCursor! })).rejects.toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: [{ path: 'cursor', message: 'not valid for this list' }] }),
    );
  });

  it('entries: a range whose from is after its to is 400; equal bounds are fine', async () => {
    await expect(h.ledger.entries.list(h.tenantId, cash, { from: 2, to: 1 })).rejects.toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: 'Invalid query: from must not be after to.', details: [{ path: 'from', message: 'is after to' }] }),
    );
    await expect(h.ledger.entries.list(h.tenantId, cash, { from: 1, to: 1 })).resolves.not.toThrow();
    await expect(h.ledger.entries.list(h.tenantId, cash, { from: 2 })).resolves.not.toThrow();
    await expect(h.ledger.entries.list(h.tenantId, cash, { to: 1 })).resolves.not.toThrow();
  });

  it('entries: a cursor that is not a [createdAt, seq] position is refused', async () => {
    const scope = new CursorScope(`entries:${h.tenantId}:${cash}`, { from: null, to: null });
    const now = h.clock.now().getTime();
    for (const position of [['2030-01-01', 1.5], [1, 1], ['x'], ['x', 1, 2], 'x', null]) {
      const cursor = h.ledger.deps.cursors.encode(scope, position, now);
      await expect(h.ledger.entries.list(h.tenantId, cash, { cursor })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'malformed' }] }));
    }
    const good = h.ledger.deps.cursors.encode(scope, ['2030-05-02T00:00:00.000Z', 1_000_000], now);
    await expect(h.ledger.entries.list(h.tenantId, cash, { cursor: good })).resolves.not.toThrow();
  });

  it('a statement: opening balance before from, movements within, closing balance, on the normal side', async () => {
    const s = await h.ledger.entries.statement(h.tenantId, sales, ms('2030-05-02T00:00:00.000Z'), ms('2030-05-03T00:00:00.000Z'));
    expect(json(s)).toEqual({
      accountId: sales,
      currency: 'USD',
      from: '2030-05-02T00:00:00.000Z',
      to: '2030-05-03T00:00:00.000Z',
      openingBalance: 10,
      movements: [{ transactionId: tx[3], type: 'DEBIT', amount: 4, occurredAt: '2030-05-03T00:00:00.000Z', effectiveAt: '2030-05-03T00:00:00.000Z' }],
      closingBalance: 6,
    });
    const withDescription = await h.ledger.entries.statement(h.tenantId, cash, ms('2030-05-01T00:00:00.000Z'), ms('2030-05-01T00:00:00.000Z'));
    expect(json(withDescription)).toMatchObject({ openingBalance: 0, closingBalance: 10, movements: [{ transactionId: tx[0], type: 'DEBIT', amount: 10, description: 'first' }] });
    const empty = await h.ledger.entries.statement(h.tenantId, cash, ms('2030-06-01T00:00:00.000Z'), ms('2030-06-02T00:00:00.000Z'));
    expect(json(empty)).toMatchObject({ openingBalance: 6, movements: [], closingBalance: 6 });
    // The same instant for both bounds is a valid (one-instant) period.
    await expect(h.ledger.entries.statement(h.tenantId, cash, 5, 5)).resolves.not.toThrow();
    await expect(h.ledger.entries.statement(h.tenantId, cash, 6, 5)).rejects.toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: 'Invalid query: from must be earlier than or equal to to.', details: [{ path: 'from', message: 'is after to' }] }),
    );
  });
});

describe('balances over a store stand-in', () => {
  const account = { id: 'a', tenantId: 't', name: 'n', description: null, currency: 'USD' as const, type: 'ASSET' as const, createdAt: 'c', seq: 1 };
  const deps = (store: Record<string, unknown>) =>
    ({ store: { account: () => account, accountsByIds: () => [account], ...store }, clock: { now: () => new Date(0) }, cursors: null }) as unknown as import('../../src/core/context.js').Deps;

  it('sorts the token balances by name whatever order the store answers in', async () => {
    const { EntryService } = await import('../../src/core/usecases/entries.js');
    const none = { out: 0n, in: 0n };
    const balances = new Map<string, { balance: bigint; pending: { out: bigint; in: bigint } }>([
      ['USDT', { balance: 1n, pending: none }],
      ['USD', { balance: 5n, pending: none }],
      ['BRZ', { balance: 2n, pending: none }],
      ['USDC', { balance: 3n, pending: none }],
    ]);
    const view = await new EntryService(deps({ balancesWithPending: () => balances })).balance('t', 'a', undefined);
    expect(view.onChainBalances.map((b) => b.token)).toEqual(['BRZ', 'USDC', 'USDT']);
    expect(view.amount.text).toBe('0.05');
  });

  it('a statement reads its movements SCAN_ROWS_MAX at a time, one more than the limit in all, and refuses a period that holds more', async () => {
    const { EntryService } = await import('../../src/core/usecases/entries.js');
    const { SCAN_ROWS_MAX, STATEMENT_MOVEMENTS_MAX } = await import('../../src/core/limits.js');
    const entry = { transactionId: 'x', entryType: 'DEBIT', amountMinor: 1n, description: null, createdAt: 'c', seq: 1, balanceAfterMinor: 1n };
    let asked: number[] = [];
    const store = (count: number) => {
      let given = 0;
      return {
        balanceAt: () => null,
        entriesBetween: (_t: string, _a: string, _s: string, _f: string, _to: string, _after: unknown, limit: number) => {
          asked.push(limit);
          const part = Array.from({ length: Math.min(count - given, limit) }, () => entry);
          given += part.length;
          return part;
        },
      };
    };
    expect((await new EntryService(deps(store(STATEMENT_MOVEMENTS_MAX))).statement('t', 'a', 0, 1)).movements).toHaveLength(STATEMENT_MOVEMENTS_MAX);
    expect(asked.every((limit) => limit <= SCAN_ROWS_MAX)).toBe(true);
    expect(asked.reduce((sum, limit) => sum + limit, 0)).toBe(STATEMENT_MOVEMENTS_MAX + 1);
    asked = [];
    await expect(new EntryService(deps(store(STATEMENT_MOVEMENTS_MAX + 1))).statement('t', 'a', 0, 1)).rejects.toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: `The period holds more than ${STATEMENT_MOVEMENTS_MAX} movements; ask for a shorter period.`,
        details: [{ path: 'to', message: 'period too long' }],
      }),
    );
  });
});

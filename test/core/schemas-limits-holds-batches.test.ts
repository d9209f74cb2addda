// More of the request schemas (src/core/schemas.ts) through the edge they are used at: the rules the HTTP suites
// reach and the unit tests did not (the mutation run showed them untested there): balance limits, holds, the event
// and hold queries, the rounding of `from`, the lists a journal line names, and amounts of many digits.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import * as s from '../../src/core/schemas.js';
import { parseBodyText, parseWith } from '../../src/core/validate.js';
import { LedgerError } from '../../src/core/errors.js';

const UUID = '0190a1b2-0000-7000-8000-00000000000a';

function refusal(run: () => unknown): { path: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('VALIDATION_FAILED');
    return (error as LedgerError).details![0]!;
  }
  throw new Error('expected a refusal');
}
const body = <S extends v.GenericSchema>(schema: S, value: unknown) => parseBodyText(schema, JSON.stringify(value));
const bodyRefusal = (schema: v.GenericSchema, value: unknown) => refusal(() => body(schema, value));
const query = <S extends v.GenericSchema>(schema: S, value: unknown) => parseWith(schema, value, 'query');
const queryRefusal = (schema: v.GenericSchema, value: unknown) => refusal(() => query(schema, value));

const fiat = { type: 'FIAT', amount: '1', currency: 'USD', rail: 'ACH' };
const chain = { type: 'ONCHAIN', amount: '1', token: 'USDC', chainId: 'EVM', txHash: '0x1', blockNumber: 7, walletAddress: 'w', tokenContract: 'c' };
const line = (monetaryEntry: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ accountId: UUID, entryType: 'DEBIT', monetaryEntry, ...extra });
const posting = (first: unknown) => ({ lines: [first, line(fiat)] });

describe('request schemas, further', () => {
  it('balance limits: an asset of the list, a signed decimal string or null, at most 8 limits', () => {
    const ok = { limits: [{ asset: 'USDC', min: '-100.00', max: '12345678901234567890' }, { asset: 'BRL', min: '0', max: null }, { asset: 'USD', max: '1.5' }] };
    expect(body(s.accountLimitsBody, ok)).toEqual(ok);
    expect(bodyRefusal(s.accountLimitsBody, { limits: [{ asset: 'XYZ' }] })).toEqual({ path: 'limits.0.asset', message: 'must be one of BRL, USD, MXN, EUR, USDC, USDT, BRZ, PYUSD' });
    expect(bodyRefusal(s.accountLimitsBody, { limits: [{ asset: 'USD', min: 5 }] })).toEqual({ path: 'limits.0.min', message: 'must be a decimal string such as "0.00", or null' });
    for (const bad of ['abc', '1.', '.5', '1.5x', 'x1.5', '1.a', '--1', 'a1']) {
      expect(bodyRefusal(s.accountLimitsBody, { limits: [{ asset: 'USD', max: bad }] }), bad).toEqual({ path: 'limits.0.max', message: 'must be a decimal string such as "-100.00", or null' });
    }
    expect(bodyRefusal(s.accountLimitsBody, { limits: 'USD' })).toEqual({ path: 'limits', message: 'must be a list of limits' });
    const nine = Array.from({ length: 9 }, () => ({ asset: 'USD' }));
    expect(bodyRefusal(s.accountLimitsBody, { limits: nine })).toEqual({ path: 'limits', message: 'must have at most 8 limits (one per asset)' });
    expect(body(s.accountLimitsBody, { limits: nine.slice(1) }).limits).toHaveLength(8);
  });

  it('holds: expiresAt is an ISO 8601 instant of the years 0001 to 9999; a capture amount, when given, a number or a decimal string', () => {
    const hold = body(s.createHoldBody, { ...posting(line(fiat)), expiresAt: '2030-01-01T00:00:00Z' });
    expect(hold.expiresAt).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(body(s.createHoldBody, posting(line(fiat))).expiresAt).toBeUndefined();
    for (const bad of ['tomorrow', 5]) expect(bodyRefusal(s.createHoldBody, { ...posting(line(fiat)), expiresAt: bad })).toEqual({ path: 'expiresAt', message: 'must be an ISO 8601 instant' });
    expect(bodyRefusal(s.createHoldBody, { ...posting(line(fiat)), expiresAt: '9999-12-31T23:59:59-14:00' })).toEqual({
      path: 'expiresAt',
      message: 'must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, once its offset is applied',
    });
    expect(body(s.captureHoldBody, {})).toEqual({});
    for (const amount of ['20', '20.00', '12345.5']) expect(body(s.captureHoldBody, { amount })).toEqual({ amount });
    // The amount is read exactly later, against the hold's asset (a number or a decimal string, as in a posting).
    for (const bad of [true, null, [], {}]) {
      expect(bodyRefusal(s.captureHoldBody, { amount: bad }), String(bad)).toEqual({ path: 'amount', message: 'must be a number or a decimal string' });
    }
  });

  it('queries: `from` rounds up and `to` down in statements and settlements; event types are a list with commas; a hold status from the list', () => {
    const sub = '2030-01-01T00:00:00.0001Z';
    expect(query(s.statementQuery, { from: sub, to: sub })).toEqual({ from: Date.parse('2030-01-01T00:00:00.001Z'), to: Date.parse('2030-01-01T00:00:00.000Z') });
    expect(query(s.settlementsQuery, { from: sub, to: sub })).toEqual({ from: Date.parse('2030-01-01T00:00:00.001Z'), to: Date.parse('2030-01-01T00:00:00.000Z') });
    expect(query(s.eventsQuery, { type: 'hold.created, hold.voided,hold.created' }).type).toEqual(['hold.created', 'hold.voided']);
    expect(query(s.eventStreamQuery, { after: UUID, type: 'transaction.committed' })).toEqual({ after: UUID, type: ['transaction.committed'] });
    const types = 'transaction.committed, transaction.reversed, account.updated, settlement.matched, settlement.unmatched, hold.created, hold.captured, hold.voided, hold.expired, bank_statement.imported, bank_statement.reconciled, bank_statement.deleted, bank_statement_line.matched, bank_statement_line.unmatched, bank_statement_line.ignored';
    expect(queryRefusal(s.eventsQuery, { type: 'hold.created,nope' })).toEqual({ path: 'type', message: `must be one or more of ${types}, separated by commas` });
    expect(queryRefusal(s.eventsQuery, { after: 'x' })).toEqual({ path: 'after', message: 'must be an event id (a UUID)' });
    expect(query(s.holdsQuery, { status: 'VOIDED', accountId: UUID })).toEqual({ status: 'VOIDED', accountId: UUID });
    expect(queryRefusal(s.holdsQuery, { status: 'DONE' })).toEqual({ path: 'status', message: 'must be one of PENDING, CAPTURED, VOIDED, EXPIRED' });
  });

  it('a journal line names the values each of its lists allows', () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [line({ ...fiat, currency: 'XXX' }), 'lines.0.monetaryEntry.currency', 'must be one of BRL, USD, MXN, EUR'],
      [line({ ...fiat, rail: 'XXX' }), 'lines.0.monetaryEntry.rail', 'must be one of ACH, WIRE, PIX, SWIFT, SEPA'],
      [line({ ...chain, token: 'XXX' }), 'lines.0.monetaryEntry.token', 'must be one of USDC, USDT, BRZ, PYUSD'],
      [line({ ...chain, chainId: 'XXX' }), 'lines.0.monetaryEntry.chainId', 'must be one of EVM, SOLANA, TRON'],
      [line(fiat, { entryType: 'XXX' }), 'lines.0.entryType', 'must be DEBIT or CREDIT'],
    ];
    for (const [first, path, message] of cases) expect(bodyRefusal(s.postTransactionBody, posting(first))).toEqual({ path, message });
  });

  it('amounts of policy rules and settlements: a whole number or decimals, many digits', () => {
    for (const amount of ['100', '123456789012345678', '1.5']) expect(body(s.createPolicyRuleBody, { type: 'MAX_DEBIT_PER_SESSION', amount }).amount).toBe(amount);
    const settlement = { accountId: UUID, expectedToken: 'USDC', expectedWalletAddress: 'w', expectedChainId: 'EVM' };
    for (const expectedAmount of ['10', '12345.5']) expect(body(s.registerSettlementBody, { ...settlement, expectedAmount }).expectedAmount).toBe(expectedAmount);
  });

  it('an agent session id is required', () => {
    expect(refusal(() => parseWith(s.agentSessionIdSchema, undefined, 'header', 'X-Agent-Session-Id')).message).toBe('is required');
  });
});

describe('request schemas of accounts, reversals, batches and the lists', () => {
  it('an account change names at least one field; currency and type cannot change', () => {
    expect(body(s.updateAccountBody, { name: 'x' })).toEqual({ name: 'x' });
    expect(bodyRefusal(s.updateAccountBody, {})).toEqual({ path: '', message: 'must name at least one of name, description and metadata' });
    expect(bodyRefusal(s.updateAccountBody, { currency: 'USD' })).toEqual({ path: 'currency', message: "cannot be changed: an account's currency is fixed when it is created" });
    expect(bodyRefusal(s.updateAccountBody, { type: 'ASSET' })).toEqual({ path: 'type', message: "cannot be changed: an account's type is fixed when it is created" });
    expect(bodyRefusal(s.updateAccountBody, { name: 'x', colour: 'red' })).toEqual({ path: 'colour', message: 'is not a known field' });
  });

  it("a reversal's metadata may not name the link the ledger sets; no other field", () => {
    expect(body(s.reverseTransactionBody, { metadata: { a: '1' }, description: 'd' })).toEqual({ metadata: { a: '1' }, description: 'd' });
    expect(bodyRefusal(s.reverseTransactionBody, { metadata: { reversesTransactionId: 'x' } })).toMatchObject({ path: 'metadata', message: expect.stringMatching(/^must not have the key reversesTransactionId/) });
    expect(bodyRefusal(s.reverseTransactionBody, { amount: 1 })).toEqual({ path: 'amount', message: 'is not a known field' });
  });

  it('a batch: atomic a boolean (false when absent), 1 to 500 postings, each with its key and no other field', () => {
    const item = { idempotencyKey: 'k', ...posting(line(fiat)) };
    expect(body(s.postBatchBody, { transactions: [item] }).atomic).toBe(false);
    expect(body(s.postBatchBody, { atomic: true, transactions: [item] }).atomic).toBe(true);
    expect(bodyRefusal(s.postBatchBody, { atomic: 'yes', transactions: [item] })).toEqual({ path: 'atomic', message: 'must be true or false' });
    expect(bodyRefusal(s.postBatchBody, { transactions: [] })).toEqual({ path: 'transactions', message: 'must have 1 to 500 transactions' });
    expect(bodyRefusal(s.postBatchBody, { transactions: Array.from({ length: 501 }, () => item) })).toMatchObject({ path: 'transactions', message: expect.stringMatching(/1 to 500 transactions/) });
    expect(bodyRefusal(s.postBatchBody, { transactions: [posting(line(fiat))] })).toMatchObject({ path: 'transactions.0.idempotencyKey' });
    expect(bodyRefusal(s.postBatchBody, { transactions: [{ ...item, extra: 1 }] })).toEqual({ path: 'transactions.0.extra', message: 'is not a known field' });
    expect(bodyRefusal(s.postBatchBody, { transactions: [item], more: 1 })).toEqual({ path: 'more', message: 'is not a known field' });
  });

  it('the lists: transactions by account, time, metadata and key; accounts by type, currency and name; a history by interval', () => {
    expect(query(s.transactionsQuery, { accountId: UUID, from: '2030-01-01T00:00:00.0001Z', metadata: { order: '1' }, idempotencyKey: 'k' })).toMatchObject({
      accountId: UUID,
      from: Date.parse('2030-01-01T00:00:00.001Z'),
      metadata: { order: '1' },
      idempotencyKey: 'k',
    });
    expect(queryRefusal(s.transactionsQuery, { metadata: { '': 'x' } })).toMatchObject({ message: 'keys must not be empty' });
    expect(queryRefusal(s.transactionsQuery, { metadata: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`k${i}`, 'v'])) })).toMatchObject({ message: 'must name at most 5 keys' });
    expect(queryRefusal(s.transactionsQuery, { metadata: { k: 'v'.repeat(1025) } })).toMatchObject({ message: expect.stringMatching(/^values must be at most 1024/) });
    expect(query(s.accountsQuery, { type: 'ASSET', currency: 'BRL', name: 'Cash' })).toMatchObject({ type: 'ASSET', currency: 'BRL', name: 'Cash' });
    expect(queryRefusal(s.accountsQuery, { type: 'asset' })).toEqual({ path: 'type', message: 'must be one of ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE' });
    expect(queryRefusal(s.accountsQuery, { currency: 'XXX' })).toMatchObject({ path: 'currency', message: 'must be one of BRL, USD, MXN, EUR' });
    expect(queryRefusal(s.accountsQuery, { name: 'n'.repeat(256) })).toMatchObject({ path: 'name', message: expect.stringMatching(/^must be at most 255/) });
    expect(query(s.balanceHistoryQuery, { from: '2030-01-01T00:00:00.0001Z', to: '2030-01-02' })).toEqual({ from: Date.parse('2030-01-01T00:00:00.001Z'), to: Date.parse('2030-01-02T00:00:00.000Z') });
    expect(query(s.balanceHistoryQuery, { from: '2030-01-01', to: '2030-01-02', interval: 'week' }).interval).toBe('week');
    expect(queryRefusal(s.balanceHistoryQuery, { from: '2030-01-01', to: '2030-01-02', interval: 'year' })).toEqual({ path: 'interval', message: 'must be one of hour, day, week, month' });
    expect(queryRefusal(s.balanceHistoryQuery, { to: '2030-01-02' })).toEqual({ path: 'from', message: 'is required' });
    expect(query(s.trialBalanceQuery, { asOf: '2030-01-01T00:00:00.0009Z', limit: '7' })).toEqual({ asOf: Date.parse('2030-01-01T00:00:00.000Z'), limit: 7 });
  });
});

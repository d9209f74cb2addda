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

  it('holds: expiresAt is an ISO 8601 instant; a capture amount, when given, a number or a decimal string', () => {
    const hold = body(s.createHoldBody, { ...posting(line(fiat)), expiresAt: '2030-01-01T00:00:00Z' });
    expect(hold.expiresAt).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(body(s.createHoldBody, posting(line(fiat))).expiresAt).toBeUndefined();
    for (const bad of ['tomorrow', 5]) expect(bodyRefusal(s.createHoldBody, { ...posting(line(fiat)), expiresAt: bad })).toEqual({ path: 'expiresAt', message: 'must be an ISO 8601 instant' });
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
    const types = 'transaction.committed, transaction.reversed, account.updated, settlement.matched, settlement.unmatched, hold.created, hold.captured, hold.voided, hold.expired';
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

import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { assertBalanced, toTransactionInput } from '../../src/core/posting.js';
import { parseJsonObject } from '../../src/core/json.js';
import { postTransactionBody } from '../../src/core/schemas.js';
import { LedgerError } from '../../src/core/errors.js';

const A = '0190a1b2-0000-7000-8000-000000000001';
const B = '0190a1b2-0000-7000-8000-000000000002';
const C = '0190a1b2-0000-7000-8000-000000000003';

type Side = 'DEBIT' | 'CREDIT';
const fiat = (accountId: string, entryType: Side, amount: string | number, currency = 'USD') => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT', amount, currency, rail: 'ACH' },
});
const onchain = (accountId: string, entryType: Side, amount: string | number, token = 'USDC', chainId = 'EVM') => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'ONCHAIN', amount, token, chainId, txHash: '0xabc', blockNumber: 7, walletAddress: '0x1', tokenContract: '0x2' },
});

/** Goes through the same edge as a request: lossless JSON text, then the schema. */
const body = (lines: unknown[], metadata?: Record<string, string>) =>
  v.parse(postTransactionBody, parseJsonObject(JSON.stringify({ lines, ...(metadata ? { metadata } : {}) })));

const input = (lines: unknown[]) => toTransactionInput(body(lines));

const ledgerError = (run: () => unknown): LedgerError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return error as LedgerError;
  }
  throw new Error('expected a LedgerError');
};

describe('toTransactionInput', () => {
  it('converts amounts to minor units of each asset and keeps line details', () => {
    const tx = toTransactionInput(body([fiat(A, 'DEBIT', 10.5), onchain(B, 'CREDIT', '1.000001', 'USDC', 'SOLANA')], { k: 'v' }));
    expect(tx.metadata).toEqual({ k: 'v' });
    expect(tx.lines[0]).toMatchObject({ accountId: A, entryType: 'DEBIT', asset: 'USD', amountMinor: 1050n, description: null });
    expect(tx.lines[0]!.details).toEqual({ kind: 'FIAT', rail: 'ACH', bankReference: null });
    expect(tx.lines[1]).toMatchObject({ accountId: B, entryType: 'CREDIT', asset: 'USDC', amountMinor: 1_000_001n });
    expect(tx.lines[1]!.details).toMatchObject({ kind: 'ONCHAIN', chainId: 'SOLANA', blockNumber: 7 });
  });

  it('defaults metadata to an empty map', () => {
    expect(input([fiat(A, 'DEBIT', 1), fiat(B, 'CREDIT', 1)]).metadata).toEqual({});
  });

  it('keeps a BRZ amount with 18 decimals exact', () => {
    const tx = input([onchain(A, 'DEBIT', '123456789012345.123456789012345678', 'BRZ'), onchain(B, 'CREDIT', '123456789012345.123456789012345678', 'BRZ')]);
    expect(tx.lines[0]!.amountMinor).toBe(123456789012345123456789012345678n);
  });

  it.each([
    [1, '0.001', 'USD', /more than 2 decimal places/],
    [0, '0', 'USD', /greater than zero/],
    [1, '-3', 'USD', /greater than zero/],
    [1, 'ten', 'USD', /decimal number/],
  ])('names line %i in the error for amount %s', (index, amount, currency, message) => {
    const lines = [fiat(A, 'DEBIT', '1', currency), fiat(B, 'CREDIT', '1', currency)];
    lines[index] = fiat(index === 0 ? A : B, index === 0 ? 'DEBIT' : 'CREDIT', amount, currency);
    const error = ledgerError(() => input(lines));
    const path = `lines.${index}.monetaryEntry.amount`;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain(path);
    expect(error.details).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it('names the on-chain line with too many decimals for its token', () => {
    const error = ledgerError(() => input([fiat(A, 'DEBIT', 1), fiat(B, 'CREDIT', 1), onchain(C, 'DEBIT', '0.0000001', 'USDT')]));
    expect(error.details?.[0]?.path).toBe('lines.2.monetaryEntry.amount');
    expect(error.details?.[0]?.message).toMatch(/more than 6 decimal places for USDT/);
  });
});

describe('assertBalanced', () => {
  it('accepts debits equal to credits per fiat currency', () => {
    expect(() =>
      assertBalanced(
        input([fiat(A, 'DEBIT', '10.50'), fiat(B, 'CREDIT', '10.5'), fiat(A, 'DEBIT', '3', 'BRL'), fiat(B, 'CREDIT', '1', 'BRL'), fiat(C, 'CREDIT', '2', 'BRL')]).lines,
      ),
    ).not.toThrow();
  });

  it('accepts a token balanced across chains', () => {
    const lines = input([onchain(A, 'DEBIT', '5', 'USDC', 'EVM'), onchain(B, 'CREDIT', '2', 'USDC', 'SOLANA'), onchain(C, 'CREDIT', '3', 'USDC', 'TRON')]).lines;
    expect(() => assertBalanced(lines)).not.toThrow();
  });

  it('accepts fiat and tokens balanced separately in one transaction', () => {
    const lines = input([fiat(A, 'DEBIT', 1), fiat(B, 'CREDIT', 1), onchain(A, 'DEBIT', '1', 'BRZ'), onchain(B, 'CREDIT', '1', 'BRZ')]).lines;
    expect(() => assertBalanced(lines)).not.toThrow();
  });

  it('refuses debits that differ from credits by one minor unit', () => {
    const error = ledgerError(() => assertBalanced(input([fiat(A, 'DEBIT', '10.01'), fiat(B, 'CREDIT', '10')]).lines));
    expect(error.code).toBe('UNBALANCED');
    expect(error.message).toMatch(/USD debits exceed credits by 0\.01/);
    expect(error.details).toEqual([{ path: 'lines', message: 'USD does not balance' }]);
  });

  it('refuses currencies that balance only when summed together', () => {
    const error = ledgerError(() => assertBalanced(input([fiat(A, 'DEBIT', 5, 'USD'), fiat(B, 'CREDIT', 5, 'EUR')]).lines));
    expect(error.code).toBe('UNBALANCED');
    expect(error.details?.map((d) => d.message).sort()).toEqual(['EUR does not balance', 'USD does not balance']);
  });

  it('refuses tokens that balance only when summed together', () => {
    const error = ledgerError(() => assertBalanced(input([onchain(A, 'DEBIT', 1, 'USDC'), onchain(B, 'CREDIT', 1, 'USDT')]).lines));
    expect(error.code).toBe('UNBALANCED');
  });

  it('refuses fiat offset by a token of equal face value', () => {
    const error = ledgerError(() => assertBalanced(input([fiat(A, 'DEBIT', 1, 'USD'), onchain(B, 'CREDIT', 1, 'USDC')]).lines));
    expect(error.code).toBe('UNBALANCED');
    expect(error.message).toMatch(/USD debits exceed credits by 1\b/);
    expect(error.message).toMatch(/USDC debits fall short of credits by 1\b/);
  });

  it('refuses a BRZ imbalance of one 10^-18 unit', () => {
    const lines = input([onchain(A, 'DEBIT', '1.000000000000000001', 'BRZ'), onchain(B, 'CREDIT', '1', 'BRZ')]).lines;
    const error = ledgerError(() => assertBalanced(lines));
    expect(error.code).toBe('UNBALANCED');
    expect(error.message).toMatch(/0\.000000000000000001/);
  });
});

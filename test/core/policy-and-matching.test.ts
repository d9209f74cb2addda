// The two pure judges of core: policy rules over an agent's transaction, and settlement matching over on-chain lines.
import fc from 'fast-check';
import { checkProperty } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy, limitInMinor, debitsOf, type PolicyRule } from '../../src/core/policy.js';
import { matchLines, lineMatches, canonicalAddress, type OnchainLine, type Settlement } from '../../src/core/settlement.js';
import type { LineInput } from '../../src/core/types.js';
import { usdLine } from './lines.js';

const rule = (type: PolicyRule['type'], params: PolicyRule['params'], agentKeyPrefix: string | null = null, id = type): PolicyRule => ({
  id,
  tenantId: 't',
  type,
  agentKeyPrefix,
  params,
  createdAt: '2026-01-01T00:00:00.000Z',
});
const judge = (rules: PolicyRule[], lines: LineInput[], before: bigint = 0n, rawKey = 'sk_live_abc') =>
  evaluatePolicy(rules, { rawKey, lines, debits: debitsOf(lines), sessionDebits: new Map([['USD', before]]), hourDebits: new Map([['USD', before]]) });

describe('policy: limits are inclusive, per asset, in exact minor units', () => {
  it('a total equal to the limit passes and one minor unit more is refused, for any limit and split', async () => {
    await checkProperty(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 15n }), (limitMinor, earlier) => {
        const limit = `${limitMinor / 100n}.${(limitMinor % 100n).toString().padStart(2, '0')}`;
        expect(limitInMinor(limit, 'USD')).toBe(limitMinor);
        for (const type of ['MAX_DEBIT_PER_SESSION', 'MAX_DEBIT_PER_HOUR'] as const) {
          const r = [rule(type, { amount: limit })];
          if (earlier <= limitMinor) {
            const rest = limitMinor - earlier;
            if (rest > 0n) expect(judge(r, [usdLine('a', 'DEBIT', rest), usdLine('b', 'CREDIT', rest)], earlier).kind).toBe('POST');
            expect(judge(r, [usdLine('a', 'DEBIT', rest + 1n), usdLine('b', 'CREDIT', rest + 1n)], earlier).kind).toBe('REFUSE');
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a limit with more places than the asset keeps is rounded down in its minor units', () => {
    expect(limitInMinor('10.019', 'USD')).toBe(1001n);
    expect(limitInMinor('0.0000001', 'USDC')).toBe(0n);
    expect(limitInMinor('1', 'BRZ')).toBe(10n ** 18n);
  });

  it('holds above the approval amount (strictly), and refusals win over holds', () => {
    const hold = rule('REQUIRE_HUMAN_APPROVAL_ABOVE', { amount: '50' });
    expect(judge([hold], [usdLine('a', 'DEBIT', 5000n), usdLine('b', 'CREDIT', 5000n)]).kind).toBe('POST');
    expect(judge([hold], [usdLine('a', 'DEBIT', 5001n), usdLine('b', 'CREDIT', 5001n)]).kind).toBe('HOLD');
    const pair = rule('FORBIDDEN_ACCOUNT_PAIR', { debitAccountId: 'a', creditAccountId: 'b' });
    expect(judge([hold, pair], [usdLine('a', 'DEBIT', 5001n), usdLine('b', 'CREDIT', 5001n)])).toMatchObject({ kind: 'REFUSE', rule: { id: 'FORBIDDEN_ACCOUNT_PAIR' } });
  });

  it('a rule with a key prefix applies only to keys that start with it', () => {
    const cap = rule('MAX_DEBIT_PER_SESSION', { amount: '1' }, 'sk_live_abc');
    const lines = [usdLine('a', 'DEBIT', 200n), usdLine('b', 'CREDIT', 200n)];
    expect(judge([cap], lines, 0n, 'sk_live_abcdef').kind).toBe('REFUSE');
    expect(judge([cap], lines, 0n, 'sk_live_xyz').kind).toBe('POST');
  });
});

const settlement = (id: string, overrides: Partial<Settlement> = {}): Settlement => ({
  id,
  tenantId: 't',
  seq: 1,
  accountId: 'acct',
  token: 'USDC',
  amountText: '10',
  amountMinor: 10_000_000n,
  chain: 'EVM',
  walletAddress: '0xAbCdEf0000000000000000000000000000000001',
  fromAddress: null,
  status: 'PENDING',
  matchedTransactionId: null,
  matchedLineNo: null,
  txHash: null,
  blockNumber: null,
  confirmedAt: null,
  expiresAt: '2030-01-01T00:00:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});
const line = (lineNo: number, overrides: Partial<OnchainLine> = {}, wallet = '0xabcdef0000000000000000000000000000000001'): OnchainLine => ({
  lineNo,
  accountId: 'acct',
  entryType: 'DEBIT',
  token: 'USDC',
  amountMinor: 10_000_000n,
  details: { kind: 'ONCHAIN', chainId: 'EVM', txHash: '0x1', blockNumber: 1, walletAddress: wallet, tokenContract: '0xc' },
  ...overrides,
});

describe('settlement matching', () => {
  it('compares EVM wallets without regard to case, and base58 wallets exactly', () => {
    expect(lineMatches(settlement('s'), line(0))).toBe(true);
    expect(canonicalAddress('SOLANA', 'AbC')).toBe('AbC');
    expect(lineMatches(settlement('s', { chain: 'SOLANA', walletAddress: 'AbC' }), line(0, { details: { ...line(0).details, chainId: 'SOLANA', walletAddress: 'abc' } as any }))).toBe(false);
  });

  it('a sender is proven only by a sender seen on the chain', () => {
    const s = settlement('s', { fromAddress: '0x00000000000000000000000000000000000000AA' });
    expect(lineMatches(s, line(0))).toBe(false);
    expect(lineMatches(s, line(0, { fromAddress: '0x00000000000000000000000000000000000000aa' }))).toBe(true);
    expect(lineMatches(s, line(0, { fromAddress: '0x00000000000000000000000000000000000000bb' }))).toBe(false);
  });

  it('each line settles at most one settlement and each settlement is settled at most once, the oldest first', async () => {
    await checkProperty(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), (settlements, lines) => {
        const pending = Array.from({ length: settlements }, (_, i) => settlement(`s${i}`, { seq: i }));
        const candidateLines = Array.from({ length: lines }, (_, i) => line(i));
        const matches = matchLines(candidateLines, () => pending);
        expect(matches.length).toBe(Math.min(settlements, lines));
        expect(new Set(matches.map((m) => m.settlement.id)).size).toBe(matches.length);
        expect(new Set(matches.map((m) => m.line.lineNo)).size).toBe(matches.length);
        expect(matches.map((m) => m.settlement.id)).toEqual(pending.slice(0, matches.length).map((s) => s.id));
      }),
    );
  });

  it('credits, other tokens, chains, amounts and accounts never match', () => {
    const s = settlement('s');
    expect(lineMatches(s, line(0, { entryType: 'CREDIT' }))).toBe(false);
    expect(lineMatches(s, line(0, { token: 'USDT' }))).toBe(false);
    expect(lineMatches(s, line(0, { amountMinor: 10_000_001n }))).toBe(false);
    expect(lineMatches(s, line(0, { accountId: 'other' }))).toBe(false);
    expect(lineMatches(s, line(0, { details: { ...line(0).details, chainId: 'TRON' } as any }))).toBe(false);
    expect(lineMatches(settlement('s', { status: 'CANCELLED' }), line(0))).toBe(false);
  });
});

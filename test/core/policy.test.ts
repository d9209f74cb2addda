// Policy rules and settlement matching (src/core/policy.ts, src/core/settlement.ts): each condition of each rule on
// its own, the messages a refusal and a hold carry, and the canonical address of each chain.
import { describe, expect, it } from 'vitest';
import { evaluatePolicy, limitInMinor, debitsOf, type PolicyRule } from '../../src/core/policy.js';
import { canonicalAddress } from '../../src/core/settlement.js';
import { assertBalanced } from '../../src/core/posting.js';
import type { LineInput } from '../../src/core/types.js';
import { usdLine } from './lines.js';

const onchain = (accountId: string, entryType: 'DEBIT' | 'CREDIT', token: 'USDC' | 'USDT' = 'USDC', chainId: 'EVM' | 'TRON' = 'EVM'): LineInput => ({
  accountId,
  entryType,
  asset: token,
  amountMinor: 1_000_000n,
  description: null,
  details: { kind: 'ONCHAIN', chainId, txHash: '0x1', blockNumber: 1, walletAddress: 'w', tokenContract: 'c' },
});
const rule = (type: PolicyRule['type'], params: PolicyRule['params'], id = 'r1'): PolicyRule => ({ id, tenantId: 't', type, agentKeyPrefix: null, params, createdAt: 'c' });
const judge = (rules: PolicyRule[], lines: LineInput[]) =>
  evaluatePolicy(rules, { rawKey: 'sk_live_x', lines, debits: debitsOf(lines), sessionDebits: new Map(), hourDebits: new Map() });

describe('FORBIDDEN_ACCOUNT_PAIR', () => {
  const pair = rule('FORBIDDEN_ACCOUNT_PAIR', { debitAccountId: 'D', creditAccountId: 'C' });

  it('refuses only a debit of the one with a credit of the other', () => {
    expect(judge([pair], [usdLine('D', 'DEBIT'), usdLine('C', 'CREDIT')])).toEqual({
      kind: 'REFUSE',
      rule: pair,
      message: 'FORBIDDEN_ACCOUNT_PAIR: a debit of D with a credit of C is not allowed.',
    });
  });

  it('a credit of the debit account, or a debit of the credit account, is not the pair', () => {
    expect(judge([pair], [usdLine('D', 'CREDIT'), usdLine('C', 'CREDIT'), usdLine('Z', 'DEBIT', 200n)]).kind).toBe('POST');
    expect(judge([pair], [usdLine('D', 'DEBIT'), usdLine('C', 'DEBIT'), usdLine('Z', 'CREDIT', 200n)]).kind).toBe('POST');
    expect(judge([pair], [usdLine('C', 'DEBIT'), usdLine('D', 'CREDIT')]).kind).toBe('POST');
  });
});

describe('ALLOWED_TOKENS and ALLOWED_CHAINS', () => {
  it('fiat lines are never refused by them', () => {
    expect(judge([rule('ALLOWED_TOKENS', { tokens: ['USDT'] })], [usdLine('a', 'DEBIT'), usdLine('b', 'CREDIT')]).kind).toBe('POST');
    expect(judge([rule('ALLOWED_CHAINS', { chains: ['TRON'] })], [usdLine('a', 'DEBIT'), usdLine('b', 'CREDIT')]).kind).toBe('POST');
  });

  it('name the first on-chain line outside the list, and the list', () => {
    const tokens = rule('ALLOWED_TOKENS', { tokens: ['USDT', 'BRZ'] });
    expect(judge([tokens], [usdLine('a', 'DEBIT'), onchain('a', 'DEBIT', 'USDT'), onchain('b', 'CREDIT', 'USDC')])).toMatchObject({
      kind: 'REFUSE',
      message: 'ALLOWED_TOKENS: USDC is not one of USDT, BRZ.',
    });
    const chains = rule('ALLOWED_CHAINS', { chains: ['EVM', 'SOLANA'] });
    expect(judge([chains], [usdLine('a', 'DEBIT'), onchain('a', 'DEBIT', 'USDC', 'EVM'), onchain('b', 'CREDIT', 'USDC', 'TRON')])).toMatchObject({
      kind: 'REFUSE',
      message: 'ALLOWED_CHAINS: TRON is not one of EVM, SOLANA.',
    });
    expect(judge([chains], [onchain('a', 'DEBIT'), onchain('b', 'CREDIT')]).kind).toBe('POST');
  });
});

describe('holds and limits', () => {
  it('a hold says which asset is above which amount', () => {
    const hold = rule('REQUIRE_HUMAN_APPROVAL_ABOVE', { amount: '0.5' }, 'h');
    expect(judge([hold], [usdLine('a', 'DEBIT', 51n), usdLine('b', 'CREDIT', 51n)])).toEqual({ kind: 'HOLD', rule: hold, message: 'USD debits of 0.51 are above 0.5: a person must approve.' });
    // A hold rule refuses nothing by itself.
    expect(judge([hold], [usdLine('a', 'DEBIT', 50n), usdLine('b', 'CREDIT', 50n)])).toEqual({ kind: 'POST' });
  });

  it('a limit without places is whole units', () => {
    expect(limitInMinor('7', 'USD')).toBe(700n);
    expect(limitInMinor('7.', 'USD')).toBe(700n);
  });
});

describe('canonical addresses', () => {
  const hex = '0xAbCdEf0000000000000000000000000000000001';
  it('an EVM address is lower case; anything else, or another chain, is kept as written', () => {
    expect(canonicalAddress('EVM', hex)).toBe(hex.toLowerCase());
    expect(canonicalAddress('SOLANA', hex)).toBe(hex);
    expect(canonicalAddress('TRON', hex)).toBe(hex);
    expect(canonicalAddress('EVM', `z${hex}`)).toBe(`z${hex}`);
    expect(canonicalAddress('EVM', `${hex}Z`)).toBe(`${hex}Z`);
    expect(canonicalAddress('EVM', hex.slice(0, -1))).toBe(hex.slice(0, -1));
  });
});

describe('balance check invariants', () => {
  it('a line of zero or less is an invariant violation, not a refusal', () => {
    expect(() => assertBalanced([usdLine('a', 'DEBIT', 0n), usdLine('b', 'CREDIT', 0n)])).toThrow(new Error('Invariant violated: line amounts are positive'));
    expect(() => assertBalanced([usdLine('a', 'DEBIT', -1n), usdLine('b', 'CREDIT', -1n)])).toThrow('Invariant violated');
  });

  it('names which side is larger, by how much', () => {
    expect(() => assertBalanced([usdLine('a', 'DEBIT', 150n), usdLine('b', 'CREDIT', 100n)])).toThrow('The transaction is not balanced: USD debits exceed credits by 0.5.');
    expect(() => assertBalanced([usdLine('a', 'DEBIT', 100n), usdLine('b', 'CREDIT', 150n)])).toThrow('The transaction is not balanced: USD debits fall short of credits by 0.5.');
  });
});

// What the Solana watcher reads as a credit from a transaction's pre and post token balances.
import { describe, expect, it } from 'vitest';
import { creditsOf, TOKEN_PROGRAMS } from '../../../src/workers/chains/solanaWatcher.js';

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WALLET = 'Wa11et1111111111111111111111111111111111111';
const SENDER = 'Sender11111111111111111111111111111111111111';
const byMint = new Map([[MINT, { token: 'USDC' as const, mint: MINT, decimals: 6, program: 'spl-token' as const }]]);
const owners = new Set([WALLET]);
const balance = (accountIndex: number, owner: string, amount: bigint, extra: object = {}) => ({
  accountIndex,
  mint: MINT,
  owner,
  programId: TOKEN_PROGRAMS['spl-token'],
  uiTokenAmount: { amount: amount.toString() },
  ...extra,
});
const tx = (pre: object[], post: object[], err: unknown = null) => ({ slot: 77n, meta: { err, preTokenBalances: pre, postTokenBalances: post } }) as any;

describe('creditsOf', () => {
  it('reads a transfer: the growth of the watched account, from the owner whose balance fell', () => {
    const credits = creditsOf('sig', tx([balance(1, SENDER, 10_000_000n), balance(2, WALLET, 5n)], [balance(1, SENDER, 7_500_000n), balance(2, WALLET, 2_500_005n)]), owners, byMint);
    expect(credits).toEqual([
      { chain: 'SOLANA', txHash: 'sig', logIndex: 2, token: 'USDC', tokenContract: MINT, from: SENDER, to: WALLET, amountMinor: 2_500_000n, blockNumber: 77 },
    ]);
  });

  it('counts a new account from zero, and a closed sender account as fallen to zero', () => {
    const [credit] = creditsOf('sig', tx([balance(1, SENDER, 3_000_000n)], [balance(2, WALLET, 3_000_000n)]), owners, byMint);
    expect(credit).toMatchObject({ from: SENDER, amountMinor: 3_000_000n, logIndex: 2 });
  });

  it('names the mint as the sender of minted tokens', () => {
    const [credit] = creditsOf('sig', tx([], [balance(4, WALLET, 1_000_000n)]), owners, byMint);
    expect(credit).toMatchObject({ from: MINT, amountMinor: 1_000_000n });
  });

  it('reads nothing from a failed transaction, a debit, an unwatched owner, an unregistered mint or another program', () => {
    const grew = [balance(1, SENDER, 10n)];
    expect(creditsOf('sig', tx(grew, [balance(2, WALLET, 10n)], { InstructionError: [0, { Custom: 1 }] }), owners, byMint)).toEqual([]);
    expect(creditsOf('sig', tx([balance(2, WALLET, 10n)], [balance(2, WALLET, 4n)]), owners, byMint)).toEqual([]);
    expect(creditsOf('sig', tx(grew, [balance(2, SENDER, 10n)]), owners, byMint)).toEqual([]);
    expect(creditsOf('sig', tx(grew, [balance(2, WALLET, 10n, { mint: 'Other111111111111111111111111111111111111111' })]), owners, byMint)).toEqual([]);
    expect(creditsOf('sig', tx(grew, [balance(2, WALLET, 10n, { programId: TOKEN_PROGRAMS['spl-token-2022'] })]), owners, byMint)).toEqual([]);
    expect(creditsOf('sig', { slot: 1, meta: null }, owners, byMint)).toEqual([]);
  });
});

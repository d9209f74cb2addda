// The token registry: the built-in mainnet one, and what a `--tokens` file may say.
import { describe, expect, it } from 'vitest';
import { chainAmountToMinor, MAINNET_TOKENS, parseTokenRegistry } from '../../src/core/tokenRegistry.js';
import { isChainAddress } from '../../src/workers/chains/addresses.js';
import { chainSettingsOf } from '../../src/cli/chainOptions.js';

const USDC_SOL = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('token registry', () => {
  it('the built-in registry is valid, and each address is one of its chain', async () => {
    expect(parseTokenRegistry(JSON.parse(JSON.stringify(MAINNET_TOKENS)))).toEqual(MAINNET_TOKENS);
    for (const entry of Object.values(MAINNET_TOKENS.EVM)) expect(await isChainAddress('EVM', entry.address), entry.address).toBe(true);
    for (const entry of Object.values(MAINNET_TOKENS.SOLANA)) expect(await isChainAddress('SOLANA', entry.mint), entry.mint).toBe(true);
    for (const entry of Object.values(MAINNET_TOKENS.TRON)) expect(await isChainAddress('TRON', entry.address), entry.address).toBe(true);
  });

  it('refuses unknown tokens, chains and fields, bad addresses and programs, and more decimals than the ledger keeps', () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ SOLANA: { DAI: { mint: USDC_SOL, decimals: 6, program: 'spl-token' } } }, /tokens must be among/],
      [{ BITCOIN: {} }, /BITCOIN/],
      [{ SOLANA: { USDC: { mint: USDC_SOL, decimals: 6, program: 'spl-token', extra: 1 } } }, /extra/],
      [{ SOLANA: { USDC: { mint: USDC_SOL, decimals: 6, program: 'token-2020' } } }, /program/],
      [{ EVM: { USDC: { address: '0x1234', decimals: 6 } } }, /EVM address/],
      [{ TRON: { USDT: { address: '0x0000000000000000000000000000000000000001', decimals: 6 } } }, /TRON address/],
      [{ EVM: { USDC: { address: `0x${'1'.repeat(40)}`, decimals: 7 } } }, /7 decimals, more than the ledger keeps for USDC \(6\)/],
      [{ SOLANA: { USDC: { mint: USDC_SOL, decimals: 1.5, program: 'spl-token' } } }, /decimals/],
    ];
    for (const [json, message] of bad) expect(() => parseTokenRegistry(json), JSON.stringify(json)).toThrow(message);
  });

  it('turns a chain amount into the ledger minor units of the token', () => {
    expect(chainAmountToMinor(12_345n, 'BRZ', 4)).toBe(12_345n * 10n ** 14n);
    expect(chainAmountToMinor(1_500_000n, 'USDC', 6)).toBe(1_500_000n);
  });

  it('the chain options refuse endpoints that are not http(s) URLs, and a registry file that cannot be read', () => {
    expect(() => chainSettingsOf({ solanaRpc: 'ws://127.0.0.1:8900' })).toThrow(/--solana-rpc must be an http\(s\) URL/);
    expect(() => chainSettingsOf({ evmRpc: '127.0.0.1:8545' })).toThrow(/--evm-rpc/);
    expect(() => chainSettingsOf({ tokens: '/nonexistent/tokens.json' })).toThrow(/--tokens: cannot read/);
    expect(chainSettingsOf({ solanaRpc: 'http://127.0.0.1:8899' })).toMatchObject({ solanaRpc: 'http://127.0.0.1:8899' });
  });
});

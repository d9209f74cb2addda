// Which contract or mint is which token on each chain, with its decimals: the contract's `--tokens` format, and the
// mainnet registry used when no file is given.
import * as v from 'valibot';
import { scaleOf, tokens, type Chain, type Token } from './money.js';
import { invalid } from './errors.js';
import { parseWith } from './validate.js';

export interface EvmToken {
  address: string;
  decimals: number;
}
export interface SolanaToken {
  mint: string;
  decimals: number;
  program: 'spl-token' | 'spl-token-2022';
}
export interface TronToken {
  address: string;
  decimals: number;
}

export interface TokenRegistry {
  EVM: Partial<Record<Token, EvmToken>>;
  SOLANA: Partial<Record<Token, SolanaToken>>;
  TRON: Partial<Record<Token, TronToken>>;
}

const decimals = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(36));
const tokenMap = <S extends v.GenericSchema>(entry: S) =>
  v.pipe(
    v.record(v.string(), entry),
    v.check((m) => Object.keys(m).every((k) => (tokens as readonly string[]).includes(k)), `tokens must be among ${tokens.join(', ')}`),
  );

export const tokenRegistrySchema = v.strictObject({
  EVM: v.optional(tokenMap(v.strictObject({ address: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address')), decimals })), {}),
  SOLANA: v.optional(
    tokenMap(v.strictObject({ mint: v.pipe(v.string(), v.minLength(32), v.maxLength(44)), decimals, program: v.picklist(['spl-token', 'spl-token-2022']) })),
    {},
  ),
  TRON: v.optional(tokenMap(v.strictObject({ address: v.pipe(v.string(), v.regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/, 'must be a TRON address')), decimals })), {}),
});

/**
 * Mainnet addresses of the stablecoins. BRZ is on Solana only: its Solana mint is the one every token list agrees on,
 * while on Ethereum the lists name both a legacy contract and a newer one, and on TRON none was found to check.
 */
export const MAINNET_TOKENS: TokenRegistry = {
  EVM: {
    USDC: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    USDT: { address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
    PYUSD: { address: '0x6c3ea9036406852006290770BEdFcAbA0e23A0e8', decimals: 6 },
  },
  SOLANA: {
    USDC: { mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6, program: 'spl-token' },
    USDT: { mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6, program: 'spl-token' },
    PYUSD: { mint: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', decimals: 6, program: 'spl-token-2022' },
    BRZ: { mint: 'FtgGSFADXBtroxq8VCausXRr2of47QBf5AS1NtZCu4GD', decimals: 4, program: 'spl-token' },
  },
  TRON: {
    USDT: { address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6 },
  },
};

/** Parses a registry file's JSON; a token whose decimals exceed the ledger's places for it cannot be kept exactly. */
export function parseTokenRegistry(json: unknown): TokenRegistry {
  const registry = parseWith(tokenRegistrySchema, json, 'token registry') as TokenRegistry;
  for (const chain of ['EVM', 'SOLANA', 'TRON'] as const) {
    for (const [token, entry] of Object.entries(registry[chain]) as Array<[Token, { decimals: number }]>) {
      if (entry.decimals > scaleOf(token)) {
        throw invalid(`Token registry: ${chain} ${token} has ${entry.decimals} decimals, more than the ledger keeps for ${token} (${scaleOf(token)}).`);
      }
    }
  }
  return registry;
}

/** A chain amount (integer in the token's decimals) as the ledger's minor units of the token. */
export const chainAmountToMinor = (raw: bigint, token: Token, tokenDecimals: number): bigint => raw * 10n ** BigInt(scaleOf(token) - tokenDecimals);

export type { Chain };

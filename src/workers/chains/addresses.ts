// Whether an address is valid on its chain, by the chain's own SDK (viem, @solana/kit, tronweb), each loaded on first
// use so that CLI commands that never check an address do not pay for it.
import type { Chain } from '../../core/money.js';

type Check = (address: string) => boolean;

const loaders: Record<Chain, () => Promise<Check>> = {
  // Mixed case must carry a valid checksum; all-lower and all-upper hex carry none and are accepted.
  EVM: async () => {
    const { isAddress } = await import('viem/utils');
    const uncased = /^0x([0-9a-f]{40}|[0-9A-F]{40})$/;
    return (address) => isAddress(address, { strict: !uncased.test(address) });
  },
  SOLANA: async () => {
    const { isAddress } = await import('@solana/kit');
    return (address) => isAddress(address);
  },
  // The base58check form (T...), not the hex form tronweb also knows.
  TRON: async () => {
    const { TronWeb } = await import('tronweb');
    return (address) => address.startsWith('T') && TronWeb.isAddress(address);
  },
};

const checks = new Map<Chain, Promise<Check>>();

export async function isChainAddress(chain: Chain, address: string): Promise<boolean> {
  let check = checks.get(chain);
  if (!check) {
    check = loaders[chain]();
    checks.set(chain, check);
  }
  return (await check)(address);
}

export const chainAddressRule: Record<Chain, string> = {
  EVM: 'an EVM address (0x and 40 hex digits; mixed case must be a valid EIP-55 checksum)',
  SOLANA: 'a Solana address (a base58 32-byte public key)',
  TRON: 'a TRON address (base58check, starting with T)',
};

// What a chain watcher reports: transfers it saw in final blocks, and how far it has scanned.
import type { Chain, Token } from './money.js';

export interface ObservedTransfer {
  chain: Chain;
  txHash: string;
  /** Position of the transfer in its block or transaction (EVM log index; Solana/TRON their own). */
  logIndex: number;
  token: Token;
  tokenContract: string;
  from: string;
  to: string;
  amountMinor: bigint;
  blockNumber: number;
  blockHash: string;
}

export interface WatchedWallet {
  tenantId: string;
  walletCanonical: string;
  /** A token a PENDING settlement expects at the wallet (a wallet expecting two tokens is listed twice). */
  token: Token;
}

export interface ChainCheckpoint {
  chain: Chain;
  nextBlock: number;
  transfersSeen: number;
  transfersMatched: number;
  updatedAt: string;
}

// What the store gives the chain watchers: checkpoints, watched wallets and the transfers they saw.
import type { Chain } from '../money.js';
import type { ChainCheckpoint, ObservedTransfer, WatchedWallet } from '../chainWatch.js';

/** ReadStore's part for the chain watchers. */
export interface ChainWatchReads {
  /** The sender of a transfer a chain watcher saw (same chain, hash, receiving wallet and amount), or null. */
  transferSender(tenantId: string, chain: Chain, txHash: string, toCanonical: string, amountMinor: bigint): Promise<string | null>;
  chainCheckpoint(chain: Chain): Promise<ChainCheckpoint | undefined>;
  /** Every tenant's wallets with a PENDING settlement on the chain, with the tokens they expect. */
  watchedWallets(chain: Chain): Promise<WatchedWallet[]>;
}

/** WriteTx's part for the chain watchers. */
export interface ChainWatchWrites {
  setChainCheckpoint(checkpoint: ChainCheckpoint): Promise<void>;
  /** Records a transfer once; false when it was recorded before. */
  insertChainTransfer(tenantId: string, transfer: ObservedTransfer, seenAt: string): Promise<boolean>;
  setTransferSettlement(tenantId: string, transfer: ObservedTransfer, settlementId: string): Promise<void>;
}

// The SQL store's chain watch: checkpoints and observed transfers.
import type { Tenant } from '../../../core/types.js';
import { canonicalAddress, canonicalTxHash } from '../../../core/settlement.js';
import type { ChainCheckpoint, ObservedTransfer, WatchedWallet } from '../../../core/chainWatch.js';
import type { Chain, Token } from '../../../core/money.js';
import { part } from '../part.js';
import type { ChainWatchReads, ChainWatchWrites } from '../../../core/ports/chainWatch.js';

export const chainWatchPart = part({
  async transferSender(tenantId: string, chain: string, txHash: string, toCanonical: string, amountMinor: bigint): Promise<string | null> {
    return (await this.s.transferSender.get({ tenantId, chain, txHash, toCanonical, amount: amountMinor.toString() }))?.from_address ?? null;
  },

  async chainCheckpoint(chain: Chain): Promise<ChainCheckpoint | undefined> {
    const r = await this.s.chainCheckpoint.get({ chain });
    return (
      r && {
        chain: r.chain as Chain,
        nextBlock: Number(r.next_block),
        transfersSeen: Number(r.transfers_seen),
        transfersMatched: Number(r.transfers_matched),
        updatedAt: r.updated_at,
      }
    );
  },

  /** Tenant by tenant, so that every seek is on an index that tenant id leads. */
  async watchedWallets(chain: Chain): Promise<WatchedWallet[]> {
    const wallets: WatchedWallet[] = [];
    for (const { id: tenantId } of await this.s.tenantIds.all()) {
      for (const r of await this.s.watchedWalletsOfTenant.all({ tenantId, chain })) wallets.push({ tenantId, walletCanonical: r.wallet_canonical, token: r.token as Token });
    }
    return wallets;
  },

  async setChainCheckpoint(c: ChainCheckpoint): Promise<void> {
    await this.s.setChainCheckpoint.run({
      chain: c.chain,
      nextBlock: BigInt(c.nextBlock),
      seen: BigInt(c.transfersSeen),
      matched: BigInt(c.transfersMatched),
      updatedAt: c.updatedAt,
    });
  },

  async insertChainTransfer(tenantId: string, t: ObservedTransfer, seenAt: string): Promise<boolean> {
    return (
      (await this.s.insertChainTransfer.run({
        tenantId,
        chain: t.chain,
        txHash: canonicalTxHash(t.chain, t.txHash),
        logIndex: BigInt(t.logIndex),
        token: t.token,
        tokenContract: t.tokenContract,
        from: t.from,
        to: t.to,
        toCanonical: canonicalAddress(t.chain, t.to),
        amount: t.amountMinor.toString(),
        blockNumber: BigInt(t.blockNumber),
        blockHash: t.blockHash,
        seenAt,
      })) === 1
    );
  },

  async setTransferSettlement(tenantId: string, t: ObservedTransfer, settlementId: string): Promise<void> {
    await this.s.setTransferSettlement.run({ tenantId, chain: t.chain, txHash: canonicalTxHash(t.chain, t.txHash), logIndex: BigInt(t.logIndex), settlementId });
  },
}) satisfies ChainWatchReads & ChainWatchWrites;

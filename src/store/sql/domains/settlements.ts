// The SQL store's expected transfers (settlements) and reconciliation results.
import type { Tenant } from '../../../core/types.js';
import type { Rows, SettlementFilter, SettlementMatchFields, SettlementTarget } from '../../../core/ports.js';
import { canonicalAddress, type ReconciliationResult, type Settlement } from '../../../core/settlement.js';
import { part, SEQ_MAX, lazy } from '../part.js';
import * as m from '../mappers.js';
import type { SettlementReads, SettlementWrites } from '../../../core/ports/settlements.js';

export const settlementsPart = part({
  async settlement(tenantId: string, settlementId: string): Promise<Settlement | undefined> {
    const r = await this.s.settlement.get({ tenantId, settlementId });
    return r && m.toSettlement(r);
  },

  async *settlementsPage(tenantId: string, filter: SettlementFilter, before: number | null, limit: number): Rows<Settlement> {
    // A time bound is the range of the tenant's sequences within it; the page's position bounds it from above too.
    const fromSeq = filter.from === null ? 0n : (await this.s.firstSettlementSeqFrom.get({ tenantId, at: filter.from }))?.seq;
    const toSeq = filter.to === null ? SEQ_MAX : (await this.s.lastSettlementSeqTo.get({ tenantId, at: filter.to }))?.seq;
    if (fromSeq === undefined || toSeq === undefined) return;
    const end = BigInt(toSeq);
    const window = { tenantId, fromSeq: BigInt(fromSeq), toSeq: before !== null && BigInt(before) <= end ? BigInt(before) - 1n : end, limit };
    const rows = filter.status ? this.s.settlementsPageByStatus.iterate({ ...window, status: filter.status }) : this.s.settlementsPage.iterate(window);
    yield* lazy(rows, m.toSettlement);
  },

  async pendingSettlements(tenantId: string, target: SettlementTarget, limit: number): Promise<Settlement[]> {
    const { accountId, token, amountMinor, chain, walletCanonical } = target;
    return (await this.s.pendingSettlements.all({ tenantId, accountId, token, amount: amountMinor.toString(), chain, walletCanonical, limit })).map(m.toSettlement);
  },

  async settlementsMatchedTo(tenantId: string, transactionId: string): Promise<Settlement[]> {
    return (await this.s.settlementsMatchedTo.all({ tenantId, transactionId })).map(m.toSettlement);
  },

  /** Tenant by tenant, so that every seek is on an index that tenant id leads. */
  async nextExpiry(): Promise<string | null> {
    let earliest: string | null = null;
    for (const { id: tenantId } of (await this.s.tenantIds.all())) {
      const at = (await this.s.firstExpiry.get({ tenantId }))?.expires_at ?? null;
      if (at !== null && (earliest === null || at < earliest)) earliest = at;
    }
    return earliest;
  },

  /** Tenant by tenant, so that every seek is on an index that tenant id leads. */
  async expiredSettlements(at: string, limit: number): Promise<Array<{ tenantId: string; id: string }>> {
    const found: Array<{ tenantId: string; id: string }> = [];
    for (const { id: tenantId } of (await this.s.tenantIds.all())) {
      if (found.length >= limit) break;
      for (const r of (await this.s.expiredSettlements.all({ tenantId, at, limit: limit - found.length }))) found.push({ tenantId, id: r.id });
    }
    return found;
  },

  async pendingSettlementsForWallet(tenantId: string, target: Omit<SettlementTarget, 'accountId'>, limit: number): Promise<Settlement[]> {
    const { token, amountMinor, chain, walletCanonical } = target;
    return (await this.s.pendingSettlementsForWallet.all({ tenantId, chain, walletCanonical, token, amount: amountMinor.toString(), limit })).map(m.toSettlement);
  },

  async insertSettlement(settlement: Omit<Settlement, 'seq'>): Promise<void> {
    const st = settlement;
    await this.s.insertSettlement.run({
      tenantId: st.tenantId,
      id: st.id,
      accountId: st.accountId,
      token: st.token,
      amountText: st.amountText,
      amount: st.amountMinor.toString(),
      chain: st.chain,
      walletAddress: st.walletAddress,
      walletCanonical: canonicalAddress(st.chain, st.walletAddress),
      fromAddress: st.fromAddress,
      fromCanonical: st.fromAddress === null ? null : canonicalAddress(st.chain, st.fromAddress),
      expiresAt: st.expiresAt,
      createdAt: st.createdAt,
    });
  },

  async settleSettlement(tenantId: string, settlementId: string, match: SettlementMatchFields): Promise<boolean> {
    const { transactionId, lineNo, txHash, blockNumber, confirmedAt } = match;
    return (
      (await this.s.settleSettlement.run({ tenantId, settlementId, transactionId, lineNo: BigInt(lineNo), txHash, blockNumber: BigInt(blockNumber), confirmedAt })) === 1
    );
  },

  async closeSettlement(tenantId: string, settlementId: string, status: 'CANCELLED' | 'UNMATCHED'): Promise<boolean> {
    return (await this.s.closeSettlement.run({ tenantId, settlementId, status })) === 1;
  },

  reconciliationResultsPage(tenantId: string, before: number | null, limit: number): Rows<ReconciliationResult & { seq: number }> {
    return lazy(this.s.reconciliationResultsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), (r) => ({
      seq: Number(r.seq),
      transactionId: r.transaction_id,
      outcome: r.outcome as ReconciliationResult['outcome'],
      settlementId: r.settlement_id,
      source: r.source as ReconciliationResult['source'],
      reconciledAt: r.reconciled_at,
    }));
  },

  async insertReconciliationResult(tenantId: string, result: ReconciliationResult): Promise<void> {
    await this.s.insertReconciliationResult.run({ tenantId, ...result });
  },
}) satisfies SettlementReads & SettlementWrites;

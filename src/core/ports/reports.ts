// What the store gives the reports: the bounds a report starts from and the balances at its instant.
import type { Asset } from '../money.js';
import type { AccountType } from '../enums.js';

/**
 * The instant a report is of, with the tenant's last transaction when it started: every page of the report counts
 * the commits up to that one only, so commits made while it is paged change none of its pages.
 */
export interface ReportInstant {
  asOf: string;
  transactionSeq: number;
}

/** An account's balance in one asset at a report's instant (null: no entry yet), in a trial balance's order. */
export interface TrialBalanceRow {
  accountId: string;
  name: string;
  asset: Asset;
  balance: bigint | null;
}

/** ReadStore's part for the reports (they write nothing). */
export interface ReportReads {
  /** The tenant's last transaction and last audit record now (0 when none), read together. */
  reportBounds(tenantId: string): Promise<{ transactionSeq: number; auditSeq: number }>;
  /** Every balance of the tenant at the report's instant, in the order of account id and asset, after a position. */
  balancesAtPart(
    tenantId: string,
    at: ReportInstant,
    after: { accountId: string; asset: string } | null,
    limit: number,
  ): Promise<Array<{ accountId: string; asset: Asset; type: AccountType; balance: bigint | null }>>;
  /** Accounts of one type with each balance at the report's instant, by name, id and asset, after a position. */
  trialBalanceRows(tenantId: string, at: ReportInstant, type: AccountType, after: { name: string; accountId: string; asset: string } | null, limit: number): Promise<TrialBalanceRow[]>;
  /** The tenant's last audit record at or before an instant, among its first `auditSeq`; null when none. */
  auditHeadAt(tenantId: string, asOf: string, auditSeq: number): Promise<{ id: string; hash: string; occurredAt: string } | null>;
}

// What the store gives the settlements domain: expected transfers, their matching, and reconciliation results.
import type { Chain, Token } from '../money.js';
import type { ReconciliationResult, Settlement } from '../settlement.js';
import type { SettlementStatus } from '../enums.js';
import type { Rows } from './rows.js';

export interface SettlementFilter {
  status: SettlementStatus | null;
  /** Inclusive bounds on createdAt. */
  from: string | null;
  to: string | null;
}

/** What a PENDING settlement must equal to match a line; the wallet is in canonical form. */
export interface SettlementTarget {
  accountId: string;
  token: Token;
  amountMinor: bigint;
  chain: Chain;
  walletCanonical: string;
}

export interface SettlementMatchFields {
  transactionId: string;
  lineNo: number;
  txHash: string;
  blockNumber: number;
  confirmedAt: string;
}

/** ReadStore's part for settlements and reconciliation. */
export interface SettlementReads {
  settlement(tenantId: string, settlementId: string): Promise<Settlement | undefined>;
  settlementsPage(tenantId: string, filter: SettlementFilter, before: number | null, limit: number): Rows<Settlement>;
  /** PENDING settlements equal to the target, oldest first. */
  pendingSettlements(tenantId: string, target: SettlementTarget, limit: number): Promise<Settlement[]>;
  settlementsMatchedTo(tenantId: string, transactionId: string): Promise<Settlement[]>;
  /** The earliest expiry among PENDING settlements of every tenant, or null when none is PENDING. */
  nextExpiry(): Promise<string | null>;
  /** PENDING settlements whose expiry is at or before the instant, across tenants. */
  expiredSettlements(at: string, limit: number): Promise<Array<{ tenantId: string; id: string }>>;
  reconciliationResultsPage(tenantId: string, before: number | null, limit: number): Rows<ReconciliationResult & { seq: number }>;
  /** PENDING settlements expecting a transfer of this token and amount to this wallet, oldest first (any account). */
  pendingSettlementsForWallet(tenantId: string, target: Omit<SettlementTarget, 'accountId'>, limit: number): Promise<Settlement[]>;
}

/** WriteTx's part for settlements and reconciliation. */
export interface SettlementWrites {
  insertSettlement(settlement: Omit<Settlement, 'seq'>): Promise<void>;
  /** PENDING to SETTLED; false when it was no longer PENDING. */
  settleSettlement(tenantId: string, settlementId: string, match: SettlementMatchFields): Promise<boolean>;
  /** PENDING to CANCELLED or UNMATCHED, dropping the expiry; false when it was no longer PENDING. */
  closeSettlement(tenantId: string, settlementId: string, status: 'CANCELLED' | 'UNMATCHED'): Promise<boolean>;
  insertReconciliationResult(tenantId: string, result: ReconciliationResult): Promise<void>;
}

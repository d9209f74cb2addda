// Settlement expectations: their record, their API shape, and the one rule that decides whether an on-chain line settles one.
// Matching is pure: the posting, batch reconciliation and the chain watchers all ask `matchLines`.
import type { Chain, Token } from './money.js';
import type { Entry, OnchainDetails } from './types.js';
import type { EntryType, ReconciliationOutcome, SettlementStatus } from './enums.js';

/** Where a reconciliation outcome came from: a posting that matched, a batch request, or a chain watcher. */
export type ReconciliationSource = 'POSTING' | 'BATCH' | 'CHAIN';

export interface Settlement {
  id: string;
  tenantId: string;
  seq: number;
  accountId: string;
  token: Token;
  /** As the client wrote it; echoed back unchanged. */
  amountText: string;
  amountMinor: bigint;
  chain: Chain;
  walletAddress: string;
  fromAddress: string | null;
  status: SettlementStatus;
  matchedTransactionId: string | null;
  matchedLineNo: number | null;
  txHash: string | null;
  blockNumber: number | null;
  confirmedAt: string | null;
  /** Set only while PENDING. */
  expiresAt: string | null;
  createdAt: string;
}

export interface ReconciliationResult {
  transactionId: string;
  outcome: ReconciliationOutcome;
  settlementId: string | null;
  source: ReconciliationSource;
  reconciledAt: string;
}

/** An address in the form two spellings of it share: EVM hex is case-insensitive; base58 (Solana, TRON) is not. */
export const canonicalAddress = (chain: Chain, address: string): string =>
  chain === 'EVM' && /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;

/** A transaction hash in the form two spellings share: EVM hex is case-insensitive. */
export const canonicalTxHash = (chain: Chain, hash: string): string => (chain === 'EVM' && /^0x[0-9a-fA-F]+$/.test(hash) ? hash.toLowerCase() : hash);

/** One on-chain line of a transaction (or one transfer a watcher saw), as matching needs it. */
export interface OnchainLine {
  lineNo: number;
  accountId: string;
  entryType: EntryType;
  token: Token;
  amountMinor: bigint;
  details: OnchainDetails;
  /** The sender, when a chain watcher saw the transfer; a posted line does not carry one. */
  fromAddress?: string | null;
}

/** The on-chain lines among entries (as posted, or as read back from their columns). */
export const onchainLinesOf = (entries: readonly Pick<Entry, 'lineNo' | 'accountId' | 'entryType' | 'asset' | 'amountMinor' | 'details'>[]): OnchainLine[] =>
  entries.flatMap((e) =>
    e.details.kind === 'ONCHAIN'
      ? [{ lineNo: e.lineNo, accountId: e.accountId, entryType: e.entryType, token: e.asset as Token, amountMinor: e.amountMinor, details: e.details }]
      : [],
  );

/** Whether the line is the transfer the settlement expects (contract, Settlements). */
export function lineMatches(settlement: Settlement, line: OnchainLine): boolean {
  if (settlement.status !== 'PENDING') return false;
  if (line.entryType !== 'DEBIT' || line.accountId !== settlement.accountId) return false;
  if (line.token !== settlement.token || line.amountMinor !== settlement.amountMinor) return false;
  if (line.details.chainId !== settlement.chain) return false;
  if (canonicalAddress(settlement.chain, line.details.walletAddress) !== canonicalAddress(settlement.chain, settlement.walletAddress)) return false;
  if (settlement.fromAddress !== null) {
    // Only a sender seen on the chain can prove the expected sender.
    if (!line.fromAddress) return false;
    if (canonicalAddress(settlement.chain, line.fromAddress) !== canonicalAddress(settlement.chain, settlement.fromAddress)) return false;
  }
  return true;
}

export interface Match {
  settlement: Settlement;
  line: OnchainLine;
}

/**
 * Pairs lines with PENDING settlements: each line settles at most one settlement (the oldest that matches),
 * and each settlement is settled at most once. `candidates` lists the PENDING settlements that may match a line, oldest first.
 */
export function matchLines(lines: readonly OnchainLine[], candidates: (line: OnchainLine) => Settlement[]): Match[] {
  const taken = new Set<string>();
  const matches: Match[] = [];
  for (const line of lines) {
    if (line.entryType !== 'DEBIT') continue;
    const settlement = candidates(line).find((s) => !taken.has(s.id) && lineMatches(s, line));
    if (!settlement) continue;
    taken.add(settlement.id);
    matches.push({ settlement, line });
  }
  return matches;
}

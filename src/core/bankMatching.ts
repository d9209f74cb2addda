// The automatic matching of a bank statement's line to the books: REFERENCE, then AMOUNT_DATE, then SUM (issue 43, section 2).
// It reads through the store (inside a write, where what the write matched before is already taken) and decides; the
// command writes what it decided.
import type { ReadStore } from './ports.js';
import { sideOf, type CandidateEntry, type StatementLine } from './bankStatement.js';
import type { MatchRule } from './enums.js';
import { RECONCILIATION_CANDIDATES_SHOWN_MAX, RECONCILIATION_SUM_ENTRIES_MAX } from './limits.js';

export type LineToMatch = Pick<StatementLine, 'accountId' | 'currency' | 'direction' | 'amount' | 'bookingDate' | 'references'>;

export type MatchDecision =
  | { rule: MatchRule; entries: CandidateEntry[] }
  /** No match; the entries an AMOUNT_DATE case could not choose between (empty when there were none). */
  | { rule: null; candidates: string[] };

const DAY_MS = 86_400_000;

/** The window of the AMOUNT_DATE rule: from the start of the UTC day `days` before the booking date to the end of the day `days` after. */
export function dateWindow(bookingDate: string, days: number): { from: string; to: string } {
  const day = Date.parse(`${bookingDate}T00:00:00.000Z`);
  return { from: new Date(day - days * DAY_MS).toISOString(), to: new Date(day + (days + 1) * DAY_MS - 1).toISOString() };
}

const oldestFirst = (a: CandidateEntry, b: CandidateEntry): number => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? -1 : 1) : a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0);

/** Decides one line's automatic match from the account's unmatched entries, by the rules in their order. */
export async function decideMatch(reader: ReadStore, tenantId: string, line: LineToMatch, windowDays: number): Promise<MatchDecision> {
  const side = sideOf(line.direction);
  const byReference = new Map<number, CandidateEntry>();
  let tooMany = false;
  for (const reference of new Set(line.references.map((r) => r.trim()).filter((r) => r !== ''))) {
    const found = await reader.entriesByReference(tenantId, line.accountId, line.currency, side, reference, RECONCILIATION_SUM_ENTRIES_MAX + 1);
    if (found.length > RECONCILIATION_SUM_ENTRIES_MAX) tooMany = true;
    for (const entry of found) byReference.set(entry.seq, entry);
  }
  const referenced = [...byReference.values()].sort(oldestFirst);
  const sameAmount = referenced.find((e) => e.amount === line.amount);
  if (sameAmount) return { rule: 'REFERENCE', entries: [sameAmount] };

  const window = dateWindow(line.bookingDate, windowDays);
  const inWindow = await reader.entriesByAmount(tenantId, line.accountId, line.currency, side, line.amount, window.from, window.to, RECONCILIATION_CANDIDATES_SHOWN_MAX + 1);
  if (inWindow.length === 1) return { rule: 'AMOUNT_DATE', entries: inWindow };

  if (!tooMany && referenced.length >= 2 && referenced.length <= RECONCILIATION_SUM_ENTRIES_MAX) {
    const total = referenced.reduce((sum, e) => sum + e.amount, 0n);
    if (total === line.amount) return { rule: 'SUM', entries: referenced };
  }
  return { rule: null, candidates: inWindow.slice(0, RECONCILIATION_CANDIDATES_SHOWN_MAX).map((e) => e.entryId) };
}

// The automatic matching of a bank statement's lines to the books: REFERENCE, then AMOUNT_DATE, then SUM (issue 43,
// section 2). It reads through the store (inside a write) and decides; the command writes what it decided.
//
// A part of a statement's lines is matched with its reads asked for at once, before the first line is decided (on
// PostgreSQL they go in one round trip, where line by line each of a line's reads was one). Lines are then decided in
// the file's order from those reads, less the entries the part's earlier lines took. A read that was cut at its limit
// and lost entries so can no longer tell what lies past its cut: that line reads again, after the part's writes so far.
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
/** Entries read per reference: one more than SUM takes, to know when there are too many. */
const REFERENCE_READ = RECONCILIATION_SUM_ENTRIES_MAX + 1;
/** Entries read in a line's window: one more than a line shows as candidates. */
const WINDOW_READ = RECONCILIATION_CANDIDATES_SHOWN_MAX + 1;

/** The window of the AMOUNT_DATE rule: from the start of the UTC day `days` before the booking date to the end of the day `days` after. */
export function dateWindow(bookingDate: string, days: number): { from: string; to: string } {
  const day = Date.parse(`${bookingDate}T00:00:00.000Z`);
  return { from: new Date(day - days * DAY_MS).toISOString(), to: new Date(day + (days + 1) * DAY_MS - 1).toISOString() };
}

const oldestFirst = (a: CandidateEntry, b: CandidateEntry): number => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? -1 : 1) : a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0);

/** Entries the store found for one of a line's questions, and whether it stopped at its limit (more may exist). */
interface Found {
  entries: CandidateEntry[];
  cut: boolean;
}

/** What the rules read for a line: the unmatched entries of each of its references, and those of its amount in its window. */
interface LineReads {
  byReference: Found[];
  inWindow: Found;
  /**
   * When a reference had more entries than were read (no SUM then): each reference's entries of the line's amount,
   * oldest first, from which REFERENCE takes its oldest.
   */
  sameAmount?: Found[];
}

/** A line's references as the rules compare them: trimmed, each once, none empty. */
const referencesOf = (line: LineToMatch): string[] => [...new Set(line.references.map((r) => r.trim()).filter((r) => r !== ''))];

/**
 * The rules over what was read, less the entries taken since; undefined when a read cut at its limit lost some of
 * its entries to them (what it did not read may then count).
 */
function decideFrom(line: LineToMatch, reads: LineReads, taken: ReadonlySet<number>): MatchDecision | undefined {
  const free = ({ entries, cut }: Found): CandidateEntry[] | undefined => {
    const left = entries.filter((e) => !taken.has(e.seq));
    return cut && left.length < entries.length ? undefined : left;
  };
  const byReference = new Map<number, CandidateEntry>();
  let tooMany = false;
  for (const found of reads.byReference) {
    const left = free(found);
    if (!left) return undefined;
    if (found.cut) tooMany = true;
    for (const entry of left) byReference.set(entry.seq, entry);
  }
  const inWindow = free(reads.inWindow);
  if (!inWindow) return undefined;

  const referenced = [...byReference.values()].sort(oldestFirst);
  let sameAmount = referenced.find((e) => e.amount === line.amount);
  if (tooMany) {
    // A reference's read holds only some of its entries: its oldest of the line's amount was read apart, oldest first.
    const oldest: CandidateEntry[] = [];
    for (const { entries, cut } of reads.sameAmount ?? []) {
      const left = entries.filter((e) => !taken.has(e.seq));
      // The first left is the reference's oldest, unless the part took all that were read.
      if (cut && left.length === 0) return undefined;
      oldest.push(...left.slice(0, 1));
    }
    sameAmount = oldest.sort(oldestFirst)[0];
  }
  if (sameAmount) return { rule: 'REFERENCE', entries: [sameAmount] };
  if (inWindow.length === 1) return { rule: 'AMOUNT_DATE', entries: inWindow };
  if (!tooMany && referenced.length >= 2 && referenced.length <= RECONCILIATION_SUM_ENTRIES_MAX) {
    const total = referenced.reduce((sum, e) => sum + e.amount, 0n);
    if (total === line.amount) return { rule: 'SUM', entries: referenced };
  }
  return { rule: null, candidates: inWindow.slice(0, RECONCILIATION_CANDIDATES_SHOWN_MAX).map((e) => e.entryId) };
}

/**
 * Reads what the rules need for all of `lines` at once: per account, currency and side, one question for the part's
 * references (each once) and one for its lines' amounts in their windows.
 */
async function readLines(reader: ReadStore, tenantId: string, lines: readonly LineToMatch[], windowDays: number): Promise<Map<LineToMatch, LineReads>> {
  const groups = new Map<string, LineToMatch[]>();
  for (const line of lines) {
    const key = JSON.stringify([line.accountId, line.currency, line.direction]);
    groups.set(key, [...(groups.get(key) ?? []), line]);
  }
  const reads = new Map<LineToMatch, LineReads>();
  const found = (entries: CandidateEntry[] | undefined, limit: number): Found => ({ entries: entries ?? [], cut: (entries?.length ?? 0) >= limit });
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const { accountId, currency, direction } = group[0]!;
      const side = sideOf(direction);
      const references = [...new Set(group.flatMap(referencesOf))];
      const asks = group.map((line) => ({ amount: line.amount, ...dateWindow(line.bookingDate, windowDays) }));
      const [byReference, byAmount] = await Promise.all([
        reader.entriesByReferences(tenantId, accountId, currency, side, references, REFERENCE_READ),
        reader.entriesByAmounts(tenantId, accountId, currency, side, asks, WINDOW_READ),
      ]);
      const cut: LineToMatch[] = [];
      for (const [i, line] of group.entries()) {
        const lineReads = { byReference: referencesOf(line).map((r) => found(byReference.get(r), REFERENCE_READ)), inWindow: found(byAmount[i], WINDOW_READ) };
        reads.set(line, lineReads);
        if (lineReads.byReference.some((r) => r.cut)) cut.push(line);
      }
      // A reference with more entries than a read takes (rare: a reference used again and again): its entries of
      // the line's amount, read apart, oldest first.
      if (cut.length === 0) return;
      const sameAmountAsks = cut.flatMap((line) => referencesOf(line).map((reference) => ({ reference, amount: line.amount })));
      const sameAmount = await reader.entriesByReferenceAmounts(tenantId, accountId, currency, side, sameAmountAsks, REFERENCE_READ);
      let at = 0;
      for (const line of cut) reads.get(line)!.sameAmount = referencesOf(line).map(() => found(sameAmount[at++], REFERENCE_READ));
    }),
  );
  return reads;
}

const NOTHING_TAKEN: ReadonlySet<number> = new Set();

/** The automatic matching of some lines of one account's statement, decided in their order. */
export class PartMatcher {
  /** Entries taken by the part's lines decided so far. */
  private readonly taken = new Set<number>();

  private constructor(
    private readonly reader: ReadStore,
    private readonly tenantId: string,
    private readonly windowDays: number,
    private readonly reads: ReadonlyMap<LineToMatch, LineReads>,
  ) {}

  /** A matcher of `lines`, their reads done. */
  static async over(reader: ReadStore, tenantId: string, lines: readonly LineToMatch[], windowDays: number): Promise<PartMatcher> {
    return new PartMatcher(reader, tenantId, windowDays, await readLines(reader, tenantId, lines, windowDays));
  }

  /**
   * A line's decision, the part's lines before it decided (and their matches written) first. What it matches is
   * taken: no later line of the part gets it.
   */
  async decide(line: LineToMatch): Promise<MatchDecision> {
    const reads = this.reads.get(line);
    if (!reads) throw new Error('PartMatcher.decide: a line the part did not read.');
    // A cut read that lost entries: the line reads again, now that the part's earlier matches are in the store.
    const decision = decideFrom(line, reads, this.taken) ?? decideFrom(line, (await readLines(this.reader, this.tenantId, [line], this.windowDays)).get(line)!, NOTHING_TAKEN)!;
    if (decision.rule !== null) for (const entry of decision.entries) this.taken.add(entry.seq);
    return decision;
  }
}

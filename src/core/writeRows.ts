// What a write writes, in rows of every table counted alike (issue 41): a command's weight (core/commands.ts) is this
// count, or a bound above it; test/store/command-rows.test.ts checks every weight against the rows really written.
import type { LineInput, TransactionInput } from './types.js';

/** The rows of every posting whatever its lines: the transaction, its audit record and its `transaction.committed` event. */
const POSTING_ROWS = 3;
/**
 * What an on-chain line may write besides its entry: the record that finds it by hash, and the settlement it settles
 * with that settlement's audit record, event and reconciliation result.
 */
const ONCHAIN_LINE_ROWS = 5;
/** What a back-dated posting writes per kept balance: the buckets of its effective instant's year, month, day, hour, ten minutes. */
const BACKDATED_BALANCE_ROWS = 5;
/**
 * A line whose account and kind are not known: its entry, its kept balance, its account's row beside the transaction
 * (the search's), what it may write on-chain, and its balance's buckets if the posting is back-dated.
 */
const LINE_ROWS_MAX = 3 + ONCHAIN_LINE_ROWS + BACKDATED_BALANCE_ROWS;
/** The idempotency record of a write under an Idempotency-Key. */
export const KEYED_ROWS = 1;
/** A record of a fixed size and what comes with it (an audit record, an event, an idempotency record). */
export const RECORD_ROWS = 4;

/** The rows of a posting of these lines and metadata entries: its entries and kept balances, and what its filters keep. */
export function postingRows(input: { lines: readonly LineInput[]; metadata: Readonly<Record<string, string>>; effectiveAt?: number }): number {
  const accounts = new Set<string>();
  const balances = new Set<string>();
  let onchain = 0;
  for (const line of input.lines) {
    accounts.add(line.accountId);
    balances.add(`${line.accountId}\u0000${line.asset}`);
    if (line.details.kind === 'ONCHAIN') onchain++;
  }
  const buckets = input.effectiveAt === undefined ? 0 : balances.size * BACKDATED_BALANCE_ROWS;
  return POSTING_ROWS + input.lines.length + balances.size + accounts.size + Object.keys(input.metadata).length + onchain * ONCHAIN_LINE_ROWS + buckets;
}

/** The same for a posting whose lines are counted but not known here (a hold's or a held agent transaction's, posted by a later step). */
export const postingRowsAtMost = (lines: number, metadataEntries: number): number => POSTING_ROWS + lines * LINE_ROWS_MAX + metadataEntries;

/** The rows a posting under an Idempotency-Key writes (POST /api/v1/transactions, one item of a batch). */
export const keyedPostingRows = (input: TransactionInput): number => postingRows(input) + KEYED_ROWS;

/**
 * A new hold: its row, its accounts (kept for the listing by account), the balances it reserves on, its record. Its
 * lines are kept in its row's document, an entry's bytes each, and weigh a row each too: a hold of 1,000 lines is as
 * large a write as a posting of 1,000, whatever its accounts.
 */
export function holdRows(input: TransactionInput): number {
  const accounts = new Set(input.lines.map((line) => line.accountId));
  const balances = new Set(input.lines.map((line) => `${line.accountId}\u0000${line.asset}`));
  return RECORD_ROWS + input.lines.length + accounts.size + balances.size;
}

/** A hold of `lines` lines released (voided or expired): the balances it reserved on, the hold, its audit record and event. */
export const releaseRows = (lines: number): number => lines + RECORD_ROWS - KEYED_ROWS;

/** A step of a hold of `lines` lines under its key: a capture posts them (with the hold's id as its metadata); a void releases them. */
export const holdStepRows = (lines: number, capture: boolean): number => (capture ? postingRowsAtMost(lines, 1) : 0) + releaseRows(lines) + KEYED_ROWS;

/** A transfer a chain watcher records: its record, the 2-line posting of it and what its line may settle. */
export const transferRows = 1 + POSTING_ROWS + 2 * 3 + ONCHAIN_LINE_ROWS;
